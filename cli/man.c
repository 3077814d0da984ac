/* The man page, samsim.1: its fixed sections around one section per
 * command, each written from the command's declarations (options.h). The
 * checked-in samsim.1 is this output (`make man`; test_cli_conventions
 * fails when it is stale). */
#include "man.h"

static const char man_head[] =
    ".TH SAMSIM 1 \"\" \"samsim\" \"User Commands\"\n"
    ".SH NAME\n"
    "samsim \\- compile and simulate Sparse Abstract Machine (SAM) dataflow graphs\n"
    ".SH SYNOPSIS\n"
    ".B samsim\n"
    ".I COMMAND\n"
    ".RI [ ARGS ]\n"
    ".br\n"
    ".B samsim help\n"
    ".RI [ COMMAND ]\n"
    ".br\n"
    ".B samsim\n"
    ".I COMMAND\n"
    ".B \\-\\-help\n"
    ".br\n"
    ".B samsim \\-\\-version\n"
    ".SH DESCRIPTION\n"
    ".B samsim\n"
    "compiles a tensor index expression and a schedule into a dataflow graph of\n"
    "SAM blocks, writes it as Graphviz DOT, and simulates it cycle-approximately\n"
    "on sparse data, reporting the result, the cycles and token statistics.\n"
    ".PP\n"
    "Tensor files are named by path:\n"
    ".I NAME.mtx\n"
    "is Matrix Market,\n"
    ".I NAME.tns\n"
    "is FROSTT, anything else is a directory in the SAM level-file layout.\n"
    "Level formats are written as in SAM graphs (\\fBss01\\fR, \\fBds01\\fR,\n"
    "\\fBdd01\\fR, \\fBsss012\\fR, \\fBnone\\fR) or as in Custard (\\fBss:1,0\\fR).\n"
    "Level letters are \\fBd\\fR (dense), \\fBs\\fR (compressed: _seg, _crd),\n"
    "\\fBb\\fR (bitvector: _bv, 64-bit words, and _seg) and \\fBl\\fR (linked\n"
    "list: _head, _crd, _next).\n"
    ".PP\n"
    "An option's value is the next argument or follows an equals sign\n"
    "(\\fB\\-\\-top 5\\fR, \\fB\\-\\-top=5\\fR); a value that starts with \\fB\\-\\fR\n"
    "must use the equals sign, so that a forgotten value never takes the next\n"
    "option. An output named \\fB\\-\\fR is standard output. Outputs are written\n"
    "under temporary names and renamed into place when complete (devices such as\n"
    ".I /dev/null\n"
    "are written in place, a tensor as Matrix Market text for a matrix and\n"
    "FROSTT text otherwise, since a device cannot hold a SAM directory); an\n"
    "output that is an input or another output of the\n"
    "same command is refused.\n"
    ".SH COMMANDS\n";

static const char man_tail[] =
    ".SH EXIT STATUS\n"
    "0 on success; 1 for bad input or arguments (one line on standard error\n"
    "naming the problem) and for failed writes, including a full standard\n"
    "output; 2 when a run deadlocks or reaches \\fB\\-\\-max\\-cycles\\fR; 3 when\n"
    "\\fB\\-\\-check\\fR finds a mismatch.\n"
    ".SH EXAMPLES\n"
    ".nf\n"
    "samsim compile 'X(i,j)=B(i,k)*C(k,j)' \\-o matmul.gv\n"
    "samsim gen urandom \\-\\-shape 250x100 \\-\\-density 0.05 \\-o B.mtx\n"
    "samsim run matmul.gv \\-t B=B.mtx \\-\\-shift \\-\\-check \\-o X.mtx \\-\\-stats run.csv\n"
    "samsim stats run.csv\n"
    "samsim render matmul.gv \\-\\-stats run.csv \\-o matmul.svg\n"
    "samsim plot sweep.csv \\-\\-x dimension \\-\\-y cycles \\-\\-by nnz \\-o sweep.svg\n"
    ".fi\n";

void man_print(FILE *f, const cli_command *const *commands, size_t n)
{
    fputs(man_head, f);
    for (size_t i = 0; i < n; i++)
        options_print_man(f, commands[i]);
    fputs(man_tail, f);
}
