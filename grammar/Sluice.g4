// grammar/Sluice.g4: the ANTLR grammar of .sluice files (lexer and parser).
//
// Newlines end statements. The lexer always emits NEWLINE; the C++ token
// source (frontend/detail/token_source.cc) drops it inside ( ) and [ ],
// keeping it inside { } (blocks and dicts). Chains (binary operators, unary
// prefixes, postfix trailers) are written as loops, not recursion, so that a
// 100,000-long chain gives a flat parse tree; only brackets nest rules, and
// the token source limits their depth before the parser runs.
grammar Sluice;

// ---------------------------------------------------------------- parser

file_ : stmtSeq EOF ;

// Junk after a statement is skipped by the error strategy's sync().
stmtSeq : sep* (stmt (sep+ stmt)*)? sep* ;

sep : NEWLINE | SEMI ;

nl : NEWLINE ;

block : LBRACE stmtSeq RBRACE ;

stmt
  : KW_FN NAME LPAREN (param (COMMA param)* COMMA?)? RPAREN block      # fnStmt
  | KW_RETURN exprList?                                                # returnStmt
  | KW_IF expr block (nl* KW_ELSE KW_IF expr block)* (nl* KW_ELSE block)? # ifStmt
  | KW_FOR forTarget KW_IN expr block                                  # forStmt
  | KW_WHILE expr block                                                # whileStmt
  | KW_BREAK                                                           # breakStmt
  | KW_CONTINUE                                                        # continueStmt
  | KW_WITH withItem (COMMA withItem)* block                           # withStmt
  | KW_SESSION (LPAREN argList? RPAREN)? (KW_AS NAME)? block           # sessionStmt
  | KW_TRY block (nl* catchClause)+                                    # tryStmt
  | KW_IMPORT STRING                                                   # importStmt
  | KW_TEST STRING block                                               # testStmt
  | KW_FIXTURE NAME block                                              # fixtureStmt
  | KW_USE NAME (COMMA NAME)*                                          # useStmt
  | KW_TEARDOWN block                                                  # teardownStmt
  | exprList (ASSIGN exprList | augOp expr)?                           # simpleStmt
  ;

param : NAME (COLON expr)? ;

withItem : expr (KW_AS NAME)? ;

catchClause : KW_CATCH name (KW_AS NAME)? block ;

augOp : PLUS_ASSIGN | MINUS_ASSIGN | STAR_ASSIGN | SLASH_ASSIGN ;

forTarget
  : NAME (COMMA NAME)* COMMA?
  | LPAREN NAME (COMMA NAME)* COMMA? RPAREN
  ;

exprList : expr (COMMA expr)* COMMA? ;

expr : orExpr ;

orExpr : andExpr (KW_OR andExpr)* ;

andExpr : notExpr (KW_AND notExpr)* ;

notExpr : KW_NOT* comparison ;

comparison : arith (compOp arith)* ;

compOp : EQ | NE | LT | LE | GT | GE | KW_IN | KW_NOT KW_IN ;

arith : term ((PLUS | MINUS) term)* ;

term : factor ((STAR | SLASH | DSLASH | PERCENT | AT) factor)* ;

// signs* postfix (** signs* postfix)*: '**' is right-associative and binds
// tighter than a unary sign on its left, as in Python.
factor : sign* postfix (POW sign* postfix)* ;

sign : MINUS | PLUS ;

postfix : primary trailer* ;

trailer
  : LPAREN argList? RPAREN                    # callTrailer
  | DOT name                                  # attrTrailer
  | LBRACK subscript (COMMA subscript)* COMMA? RBRACK # indexTrailer
  ;

subscript : lo=expr? (c1=COLON hi=expr? (c2=COLON st=expr?)?)? ;

argList : arg (COMMA arg)* COMMA? ;

arg : NAME COLON expr | expr ;

primary
  : EXPECT_ERROR (LPAREN argList? RPAREN block?)?   # expectErrorPrimary
  | NAME                                           # namePrimary
  | INT                                            # intPrimary
  | FLOAT                                          # floatPrimary
  | STRING                                         # stringPrimary
  | KW_TRUE                                        # truePrimary
  | KW_FALSE                                       # falsePrimary
  | KW_NONE                                        # nonePrimary
  | LPAREN (expr (COMMA expr)* COMMA?)? RPAREN     # parenPrimary
  | LBRACK (expr (compClause+ | (COMMA expr)* COMMA?))? RBRACK # listPrimary
  | LBRACE nl* (dictEntry nl* (COMMA nl* dictEntry nl*)* (COMMA nl*)?)? RBRACE # dictPrimary
  | KW_SPAWN (LPAREN argList? RPAREN)? block       # spawnPrimary
  ;

dictEntry : expr nl* COLON nl* expr ;

compClause : KW_FOR forTarget KW_IN orExpr (KW_IF orExpr)* ;

name : NAME | EXPECT_ERROR ;

// ----------------------------------------------------------------- lexer

KW_FN : 'fn' ;
KW_RETURN : 'return' ;
KW_IF : 'if' ;
KW_ELSE : 'else' ;
KW_FOR : 'for' ;
KW_IN : 'in' ;
KW_WHILE : 'while' ;
KW_BREAK : 'break' ;
KW_CONTINUE : 'continue' ;
KW_WITH : 'with' ;
KW_AS : 'as' ;
KW_SESSION : 'session' ;
KW_TRY : 'try' ;
KW_CATCH : 'catch' ;
KW_IMPORT : 'import' ;
KW_TEST : 'test' ;
KW_FIXTURE : 'fixture' ;
KW_USE : 'use' ;
KW_TEARDOWN : 'teardown' ;
KW_AND : 'and' ;
KW_OR : 'or' ;
KW_NOT : 'not' ;
KW_TRUE : 'true' ;
KW_FALSE : 'false' ;
KW_NONE : 'none' ;
KW_SPAWN : 'spawn' ;
EXPECT_ERROR : 'expect_error' ;

NAME : [a-zA-Z_] [a-zA-Z_0-9]* ;

FLOAT
  : DIGIT+ '.' DIGIT* EXPONENT?
  | '.' DIGIT+ EXPONENT?
  | DIGIT+ EXPONENT
  ;

INT : '0' [xX] HEXDIGIT+ | DIGIT+ ;

// Escapes are checked and decoded by the AST builder.
STRING : 'r'? '"' (~["\\\r\n] | '\\' ~[\r\n])* '"' ;
// A string with no closing quote on its line; reported by the token source.
UNTERMINATED_STRING : 'r'? '"' (~["\\\r\n] | '\\' ~[\r\n])* '\\'? ;

POW : '**' ;
DSLASH : '//' ;
EQ : '==' ;
NE : '!=' ;
LE : '<=' ;
GE : '>=' ;
PLUS_ASSIGN : '+=' ;
MINUS_ASSIGN : '-=' ;
STAR_ASSIGN : '*=' ;
SLASH_ASSIGN : '/=' ;
LT : '<' ;
GT : '>' ;
ASSIGN : '=' ;
PLUS : '+' ;
MINUS : '-' ;
STAR : '*' ;
SLASH : '/' ;
PERCENT : '%' ;
AT : '@' ;
LPAREN : '(' ;
RPAREN : ')' ;
LBRACK : '[' ;
RBRACK : ']' ;
LBRACE : '{' ;
RBRACE : '}' ;
COMMA : ',' ;
COLON : ':' ;
SEMI : ';' ;
DOT : '.' ;

NEWLINE : '\r'? '\n' ;
WS : [ \t\r\f]+ -> skip ;
COMMENT : '#' ~[\r\n]* -> skip ;

// Anything else; reported and dropped by the token source.
ERROR_CHAR : . ;

fragment DIGIT : [0-9] ;
fragment HEXDIGIT : [0-9a-fA-F] ;
fragment EXPONENT : [eE] [+-]? DIGIT+ ;
