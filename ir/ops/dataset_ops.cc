// ir/ops/dataset_ops.cc: tf.data's op rows (TF1 names in snake_case).
// A dataset op outputs a variant scalar describing a dataset; every one
// carries its element signature in output_types / output_shapes, as TF's
// do, so an iterator's get_next knows its outputs at graph-build time.
// map and filter name a function of the graph's library in an attr.
#include "ir/inference.h"
#include "ir/op_registry.h"

namespace sluice::ir {

namespace {

using AT = AttrType;

Status scalarInputs(InferenceContext &c, std::initializer_list<int> which,
                    std::initializer_list<const char *> names) {
  auto name = names.begin();
  for (int i : which) {
    const Shape &s = c.inputShape(i);
    if (s.hasRank() && s.rank() != 0)
      return c.error(std::string(*name) + " must be a scalar, got shape " + s.str());
    ++name;
  }
  return Status::ok();
}

// Every dataset row: a variant scalar out, the element signature as attrs.
OpDefBuilder datasetRow(const char *name) {
  OpDefBuilder b(name);
  b.output("handle: variant");
  return b;
}

OpDefBuilder &withSignature(OpDefBuilder &b) {
  return b.attr("output_types", AT::kTypeList).attr("output_shapes", AT::kShapeList);
}

Status datasetInput(InferenceContext &c) {
  if (c.inputType(0) != DType::kVariant)
    return c.error("input_dataset must be a dataset (variant), got " +
                   std::string(dtypeName(c.inputType(0))));
  return Status::ok();
}

} // namespace

void registerDatasetOps(OpRegistry &reg) {
  reg.add(OpDefBuilder("function_arg")
              .tf("_Arg")
              .output("output: T")
              .typeAttr("T")
              .attr("index", AT::kInt)
              .minimum(0)
              .attr("shape", AT::kShape, Shape::unknown())
              .stateful()
              .shape([](InferenceContext &c) {
                c.setOutput(0, c.attr<Shape>("shape"));
                return Status::ok();
              })
              .doc("parameter `index` of a function body; fed by each call")
              .build());

  {
    OpDefBuilder b = datasetRow("tensor_slice_dataset");
    b.tf("TensorSliceDataset");
    b.input("components: Toutput_types")
        .attr("Toutput_types", AT::kTypeList)
        .attr("output_shapes", AT::kShapeList)
        .shape(scalarShape)
        .doc("the slices of its components along dimension 0");
    reg.add(b.build());
  }
  {
    OpDefBuilder b = datasetRow("range_dataset");
    b.tf("RangeDataset");
    b.input("start: i64").input("stop: i64").input("step: i64");
    withSignature(b)
        .shape([](InferenceContext &c) {
          SLUICE_TRY(scalarInputs(c, {0, 1, 2}, {"start", "stop", "step"}));
          return scalarShape(c);
        })
        .doc("start, start+step, ... up to (not including) stop");
    reg.add(b.build());
  }
  {
    OpDefBuilder b = datasetRow("text_line_dataset");
    b.tf("TextLineDataset");
    b.input("filenames: string")
        .shape([](InferenceContext &c) {
          const Shape &s = c.inputShape(0);
          if (s.hasRank() && s.rank() > 1)
            return c.error("filenames must be a scalar or a vector, got shape " + s.str());
          return scalarShape(c);
        })
        .doc("the lines of the files, in order, without line terminators");
    reg.add(b.build());
  }
  {
    OpDefBuilder b = datasetRow("map_dataset");
    b.tf("MapDataset");
    b.input("input_dataset: variant").input("other_arguments: Targuments");
    b.attr("f", AT::kString).attr("Targuments", AT::kTypeList);
    withSignature(b)
        .shape([](InferenceContext &c) {
          SLUICE_TRY(datasetInput(c));
          return scalarShape(c);
        })
        .doc("applies function f to each element (captured tensors follow)");
    reg.add(b.build());
  }
  {
    OpDefBuilder b = datasetRow("filter_dataset");
    b.tf("FilterDataset");
    b.input("input_dataset: variant").input("other_arguments: Targuments");
    b.attr("predicate", AT::kString).attr("Targuments", AT::kTypeList);
    withSignature(b)
        .shape([](InferenceContext &c) {
          SLUICE_TRY(datasetInput(c));
          return scalarShape(c);
        })
        .doc("keeps the elements for which predicate returns true");
    reg.add(b.build());
  }
  {
    OpDefBuilder b = datasetRow("batch_dataset");
    b.tf("BatchDatasetV2");
    b.input("input_dataset: variant").input("batch_size: i64").input("drop_remainder: bool");
    withSignature(b)
        .shape([](InferenceContext &c) {
          SLUICE_TRY(datasetInput(c));
          SLUICE_TRY(scalarInputs(c, {1, 2}, {"batch_size", "drop_remainder"}));
          return scalarShape(c);
        })
        .doc("stacks batch_size consecutive elements");
    reg.add(b.build());
  }
  {
    OpDefBuilder b = datasetRow("shuffle_dataset");
    b.tf("ShuffleDataset");
    b.input("input_dataset: variant").input("buffer_size: i64").input("seed: i64").input(
        "seed2: i64");
    b.attr("reshuffle_each_iteration", AT::kBool, true);
    withSignature(b)
        .shape([](InferenceContext &c) {
          SLUICE_TRY(datasetInput(c));
          SLUICE_TRY(scalarInputs(c, {1, 2, 3}, {"buffer_size", "seed", "seed2"}));
          return scalarShape(c);
        })
        .doc("samples uniformly from a buffer of buffer_size elements");
    reg.add(b.build());
  }
  {
    OpDefBuilder b = datasetRow("repeat_dataset");
    b.tf("RepeatDataset");
    b.input("input_dataset: variant").input("count: i64");
    withSignature(b)
        .shape([](InferenceContext &c) {
          SLUICE_TRY(datasetInput(c));
          SLUICE_TRY(scalarInputs(c, {1}, {"count"}));
          return scalarShape(c);
        })
        .doc("the input count times (-1: forever)");
    reg.add(b.build());
  }
  for (const char *name : {"take_dataset", "skip_dataset"}) {
    bool take = std::string(name) == "take_dataset";
    OpDefBuilder b = datasetRow(name);
    b.tf(take ? "TakeDataset" : "SkipDataset");
    b.input("input_dataset: variant").input("count: i64");
    withSignature(b)
        .shape([](InferenceContext &c) {
          SLUICE_TRY(datasetInput(c));
          SLUICE_TRY(scalarInputs(c, {1}, {"count"}));
          return scalarShape(c);
        })
        .doc(take ? "the first count elements (-1: all)" : "all but the first count elements (-1: none)");
    reg.add(b.build());
  }
  {
    OpDefBuilder b = datasetRow("prefetch_dataset");
    b.tf("PrefetchDataset");
    b.input("input_dataset: variant").input("buffer_size: i64");
    withSignature(b)
        .shape([](InferenceContext &c) {
          SLUICE_TRY(datasetInput(c));
          SLUICE_TRY(scalarInputs(c, {1}, {"buffer_size"}));
          return scalarShape(c);
        })
        .doc("produces up to buffer_size elements ahead on a background thread");
    reg.add(b.build());
  }

  {
    OpDefBuilder b("one_shot_iterator");
    b.tf("OneShotIterator"); // TF's builds the dataset from a function attr
    b.input("dataset: variant").output("handle: resource");
    b.attr("container", AT::kString, std::string()).attr("shared_name", AT::kString, std::string());
    withSignature(b)
        .stateful()
        .shape(scalarShape)
        .doc("an iterator initialized from its dataset on first use");
    reg.add(b.build());
  }
  {
    OpDefBuilder b("iterator");
    b.tf("IteratorV2", "Iterator");
    b.output("handle: resource");
    b.attr("container", AT::kString, std::string()).attr("shared_name", AT::kString, std::string());
    withSignature(b).stateful().shape(scalarShape).doc(
        "an iterator that make_iterator initializes (and re-initializes)");
    reg.add(b.build());
  }
  reg.add(OpDefBuilder("make_iterator")
              .tf("MakeIterator")
              .input("dataset: variant")
              .input("iterator: resource")
              .stateful()
              .doc("(re)starts the iterator at the beginning of dataset")
              .build());
  {
    OpDefBuilder b("iterator_get_next");
    b.tf("IteratorGetNext");
    b.input("iterator: resource").output("components: output_types");
    withSignature(b)
        .stateful()
        .expensive()
        .shape([](InferenceContext &c) {
          const auto &shapes = c.attr<std::vector<Shape>>("output_shapes");
          for (int i = 0; i < c.numOutputs(); ++i)
            c.setOutput(i, i < static_cast<int>(shapes.size()) ? shapes[i] : Shape::unknown());
          return Status::ok();
        })
        .doc("the next element; out_of_range \"End of sequence\" at the end");
    reg.add(b.build());
  }
}

} // namespace sluice::ir
