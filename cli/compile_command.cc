// cli/compile_command.cc: `sluice compile FILE --emit FORM` (driver/emit.h lists the forms):
// writes the graph, its placement, its per-device partitions or its cost.
#include <iostream>

#include "cli/cluster_flags.h"
#include "cli/commands.h"
#include "driver/driver.h"
#include "driver/emit.h"

namespace sluice::cli {

void addCompileCommand(CLI::App &app, int &exitCode) {
  auto opts = std::make_shared<driver::CompileOptions>();
  CLI::App *cmd = app.add_subcommand("compile", "Build a graph file's graph (or read a .sir) and write it");
  cmd->add_option("file", opts->file, "The .sluice or .sir file")->required();
  cmd->add_option("--emit", opts->emit, "Output form: " + driver::emitHelp());
  cmd->add_option("--fetch", opts->fetches,
                  "For --emit obj: a tensor the function computes (a top-level variable or "
                  "NODE[:INDEX]); repeat for several");
  cmd->add_option("--header", opts->header, "For --emit obj: the C header to write (default: -o with .h)");
  cmd->add_option("--function", opts->function,
                  "For --emit obj: the C function's name (default: the stem of -o, then _run)");
  cmd->add_option("--gpu-arch", opts->gpuArch, "The GPU architecture for --emit ptx (default sm_90)");
  cmd->add_option("--cpus", opts->cpus,
                  "CPU devices per task for --emit placement, dot, partitions and cost")
      ->check(CLI::PositiveNumber);
  cmd->add_flag("--allow-soft-placement", opts->allowSoftPlacement,
                "Place unsatisfiable device requests on a CPU (with a note)");
  cmd->add_option("-o,--output", opts->output,
                  "Output file (default: stdout); the directory for --emit partitions");
  cmd->add_option("--print-after", opts->printAfter,
                  "Print the IR to stderr after this pass ('all' for every pass)");
  cmd->add_flag("--Werror", opts->werror, "Treat pipeline and cost warnings as errors");
  addTaskFlags(*cmd, opts->taskFlags);
  cmd->callback([opts, &exitCode] {
    exitCode = driver::compileProgram(*opts, std::cout, std::cerr);
  });
}

} // namespace sluice::cli
