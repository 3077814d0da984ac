/* samsim run GRAPH: simulate a SAM graph on tensors bound to its names
 * (run/graph_run.h), then write its result, its statistics and the
 * summary. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/progress.h"
#include "../common/troff.h"
#include "../formats/tensor_file.h"
#include "../formats/text_out.h"
#include "../graph/graph.h"
#include "../run/graph_run.h"
#include "../run/template_dir.h"
#include "../hwmodel/hw.h"
#include "args.h"
#include "commands.h"
#include "options.h"
#include "outputs.h"
#include "run_template.h"

typedef struct run_opts {
    const char *graph, *out, *stats, *hw, *outcome, *trace;
    trace_options trace_opts;
    int quiet;
    const char *configs[GRAPH_RUN_MAX_BINDINGS];
    int nconfigs;
    sim_config file_settings, cli_settings;
    hw_desc hardware;    /* what --hw describes */
    graph_run_request req;
} run_opts;

static int parse_binding(run_opts *o, const char *v, sam_error *err)
{
    const char *eq = strchr(v, '=');
    if (!eq || eq == v || !eq[1])
        return error_set(err, "run: -t takes NAME=FILE or NAME=NUMBER, not '%s'", v);
    if (o->req.nbind == GRAPH_RUN_MAX_BINDINGS)
        return error_set(err, "run: more than %d -t bindings", GRAPH_RUN_MAX_BINDINGS);
    o->req.bind_name[o->req.nbind] = strndup(v, (size_t)(eq - v));
    o->req.bind_value[o->req.nbind++] = eq + 1;
    return 0;
}

/* --impl TYPE=NAME is the setting TYPE.impl = NAME. */
static int parse_impl(run_opts *o, const char *v, sam_error *err)
{
    const char *eq = strchr(v, '=');
    if (!eq || eq == v || !eq[1])
        return error_set(err, "run: --impl takes TYPE=NAME, not '%s'", v);
    char key[200];
    snprintf(key, sizeof key, "%.*s.impl", (int)(eq - v), v);
    return sim_config_add(&o->cli_settings, key, eq + 1, "--impl", err);
}

enum {
    OPT_BIND = 1, OPT_DATA, OPT_SHIFT, OPT_OUT, OPT_STATS, OPT_CHECK, OPT_EXPR, OPT_TILE, OPT_HW,
    OPT_ENGINE, OPT_SPLIT, OPT_DEPTH, OPT_LATENCY, OPT_MAX_CYCLES, OPT_IMPL, OPT_CONFIG,
    OPT_OUTCOME, OPT_TRACE, OPT_TRACE_WINDOW, OPT_TRACE_BLOCKS, OPT_QUIET
};

static const cli_option run_options[] = {
    {OPT_BIND, "-t", "NAME=FILE|NUMBER", "binds operand NAME (a number for a scalar)",
     "A NAME the graph has no operand of is an error."},
    {OPT_DATA, "--data", "DIR", "a SAM level-file directory holding the operands", NULL},
    {OPT_SHIFT, "--shift", NULL, "derives each missing operand from the one before it",
     "By the SAM convention: shifted, values 2, transposed where the graph multiplies by it."},
    {OPT_OUT, "-o", "OUT", "writes the result ('-': Matrix Market on standard output)",
     "Or FROSTT when not a matrix, the summary then going to standard error. Without -o the "
     "summary says the result was not written and lists it when it has at most 20 entries."},
    {OPT_STATS, "--stats", "FILE.csv", "writes per-stream and per-block statistics",
     "A run that deadlocks or reaches --max-cycles writes them too, up to the cycle it stopped "
     "in, with deadlock or stopped in the run row's kind column."},
    {OPT_CHECK, "--check", NULL, "compares with an independent evaluation (exit 3 on mismatch)",
     NULL},
    {OPT_EXPR, "--expr", "EXPR", "the expression --check evaluates and --tile splits",
     "For graphs that record none; an error without either."},
    {OPT_TILE, "--tile", "SPLITS",
     "runs on tiles: split(i,i1,i0,N) commands, as compile's -s (default: the graph's tiling "
     "attribute)",
     "The summary adds tiles_run and tiles_skipped."},
    {OPT_HW, "--hw", "FILE", "the memories tiles travel through (key = value lines, below)",
     "DRAM, the LLB and the PE buffer. The summary's cycles then include the waits for "
     "transfers, and it adds compute_cycles, dram_bytes, a traffic line per tensor and seconds. "
     "No buffer holds more than its capacity; a tile that cannot fit is refused, naming the tile "
     "point and the buffer."},
    {OPT_ENGINE, "--engine", "event|step|cycle",
     "the engine (default event; all give the same numbers)",
     "event runs each block ahead on its own clock, step does so through every block's "
     "one-cycle step, cycle steps every block every cycle."},
    {OPT_SPLIT, "--split", "SEED", "ends run-ahead windows at random cycles (a check)",
     "Which must change nothing: a check of a block's own run."},
    {OPT_DEPTH, "--depth", "N", "bounds every channel to N tokens", NULL},
    {OPT_LATENCY, "--latency", "N", "cycles every channel delays a token (default 1)", NULL},
    {OPT_MAX_CYCLES, "--max-cycles", "N", "stops an unfinished run after N cycles (N >= 1; exit 2)",
     "Without it a run goes on until it finishes or deadlocks, or at the latest 2^42 cycles. "
     "A tiled run is bounded as a "
     "whole: it stops in the first tile point that would end after cycle N, or that deadlocks, "
     "and the report names that point."},
    {OPT_IMPL, "--impl", "TYPE=NAME", "the implementation of every TYPE block (samsim blocks)",
     NULL},
    {OPT_CONFIG, "--config", "FILE", "timing and implementation settings (key = value lines)",
     "Keys channel.capacity, channel.latency, TYPE.NAME for every node of a block type, "
     "node.ID.NAME for one node, and bitvector.width for every bitvector block: blocks that "
     "share a bitvector stream must agree on its word width, and a graph where they do not is "
     "refused."},
    {OPT_OUTCOME, "--outcome", "FILE.csv", "writes the summary's fields as key,value rows",
     "A sweep's job reads its run's record from it."},
    {OPT_TRACE, "--trace", "FILE.json",
     "writes when each block was busy, blocked and starved (Trace Event Format)",
     "A track per block, for Perfetto's UI or chrome://tracing: busy for the steps that "
     "changed it, blocked while refused for a full output, starved while it waited for input "
     "(up to its last busy cycle), in cycles; stretches that touch are one slice; and a counter "
     "per reader of each stream with the tokens waiting for it, the mean over each of at most "
     "2048 stretches of cycles. A run that deadlocks or reaches --max-cycles writes it too. A "
     "tiled run has no blocks' tracks: a "
     "track per PE holds the tile points it ran, named by their tile coordinates "
     "(i1=0,k1=3,j1=2), and with --hw one per link (dram, llb to pe N) its transfers, named by "
     "tensor and tile, with their bytes, in microseconds at the clock; slices that touch and "
     "agree are one, and a track of more than its share of about 500,000 slices names them by "
     "outer tiles, then joins them across gaps (doc/commands.md). A template directory's "
     "trace has a process per phase, end to end."},
    {OPT_TRACE_WINDOW, "--trace-window", "FROM:TO", "traces only cycles FROM to TO - 1", NULL},
    {OPT_TRACE_BLOCKS, "--trace-blocks", "LIST",
     "traces only the blocks whose node id or type is in LIST (comma-separated)",
     "And the streams into and out of them."},
    {OPT_QUIET, "--quiet", NULL, "no progress line on a terminal", NULL},
    {0, NULL, NULL, NULL, NULL},
};

/* --trace-window FROM:TO, FROM below TO. */
static int take_trace_window(run_opts *o, const char *v, sam_error *err)
{
    const char *colon = strchr(v, ':');
    char from[32];
    if (!colon || (size_t)(colon - v) >= sizeof from)
        return error_set(err, "run: --trace-window takes FROM:TO, not '%s'", v);
    snprintf(from, sizeof from, "%.*s", (int)(colon - v), v);
    if (args_uint64("--trace-window", from, &o->trace_opts.from, err) ||
        args_uint64("--trace-window", colon + 1, &o->trace_opts.to, err))
        return -1;
    return o->trace_opts.from < o->trace_opts.to
               ? 0
               : error_set(err, "run: --trace-window %s: FROM must be below TO", v);
}

static int take_config(run_opts *o, const char *v, sam_error *err)
{
    if (o->nconfigs == GRAPH_RUN_MAX_BINDINGS)
        return error_set(err, "run: more than %d --config files", GRAPH_RUN_MAX_BINDINGS);
    o->configs[o->nconfigs++] = v;
    return sim_config_read(&o->file_settings, v, err);
}

static int take_max_cycles(run_opts *o, const char *v, sam_error *err)
{
    if (args_uint64("--max-cycles", v, &o->req.max_cycles, err))
        return -1;
    return o->req.max_cycles ? 0 : error_set(err, "run: --max-cycles must be at least 1");
}

static int take_graph(run_opts *o, const char *v, sam_error *err)
{
    if (o->graph)
        return error_set(err, "run: unexpected argument '%s'", v);
    o->graph = v;
    return 0;
}

static int take(void *ctx, int id, const char *v, sam_error *err)
{
    run_opts *o = ctx;
    switch (id) {
    case CLI_OPERAND: return take_graph(o, v, err);
    case OPT_BIND: return parse_binding(o, v, err);
    case OPT_DATA: return o->req.data = v, 0;
    case OPT_SHIFT: return o->req.shift = 1, 0;
    case OPT_OUT: return o->out = v, 0;
    case OPT_STATS: return o->stats = v, 0;
    case OPT_CHECK: return o->req.check = 1, 0;
    case OPT_EXPR: return o->req.expr = v, 0;
    case OPT_TILE: return o->req.tiling = v, 0;
    case OPT_HW: return o->hw = v, 0;
    case OPT_ENGINE: return args_engine(v, &o->req.engine, err);
    case OPT_SPLIT: return args_uint64("--split", v, &o->req.split, err);
    case OPT_DEPTH: return sim_config_add(&o->cli_settings, "channel.capacity", v, "--depth", err);
    case OPT_LATENCY:
        return sim_config_add(&o->cli_settings, "channel.latency", v, "--latency", err);
    case OPT_MAX_CYCLES: return take_max_cycles(o, v, err);
    case OPT_IMPL: return parse_impl(o, v, err);
    case OPT_CONFIG: return take_config(o, v, err);
    case OPT_OUTCOME: return o->outcome = v, 0;
    case OPT_TRACE: return o->trace = v, 0;
    case OPT_TRACE_WINDOW: return take_trace_window(o, v, err);
    case OPT_TRACE_BLOCKS:
        return trace_blocks_valid(v, err) ? -1 : (o->trace_opts.blocks = v, 0);
    default: return o->quiet = 1, 0;
    }
}

static int parse_args(int argc, char **argv, run_opts *o, sam_error *err)
{
    memset(o, 0, sizeof *o);
    o->req.max_cycles = UINT64_MAX;
    if (options_parse(&cmd_run_command, argc, argv, take, o, err))
        return -1;
    if (!o->graph)
        return options_usage(&cmd_run_command, err);
    if ((o->trace_opts.to || o->trace_opts.blocks) && !o->trace)
        return error_set(err, "run: --trace-window and --trace-blocks shape --trace; give it too");
    /* An expression that nothing uses would look like a passed check. */
    if (o->req.expr && !o->req.check && !o->req.tiling)
        return error_set(err, "run: --expr is the expression --check evaluates and --tile "
                              "splits; give one of them too");
    return 0;
}

static void free_opts(run_opts *o)
{
    sim_config_free(&o->file_settings);
    sim_config_free(&o->cli_settings);
    for (int i = 0; i < o->req.nbind; i++)
        free((char *)o->req.bind_name[i]);
}

/* Every file the run reads, against -o, --stats and --outcome. */
static int check_outputs(const run_opts *o, const sam_graph *g, sam_error *err)
{
    io_file in[2 + 2 * GRAPH_RUN_MAX_BINDINGS + 64];
    int n = 0;
    in[n++] = (io_file){"graph", o->graph, NULL};
    for (int i = 0; i < o->nconfigs; i++)
        in[n++] = (io_file){"--config", o->configs[i], NULL};
    if (o->hw)
        in[n++] = (io_file){"--hw", o->hw, NULL};
    for (int i = 0; i < o->req.nbind; i++)
        in[n++] = (io_file){"-t", o->req.bind_value[i], o->req.bind_name[i]};
    for (int k = 1; k < g->ntensors && k <= 64 && o->req.data; k++)
        in[n++] = (io_file){"--data", o->req.data, g->tensors[k].name};
    const io_file out[] = {{"-o", o->out, g->ntensors ? g->tensors[0].name : NULL},
                           {"--stats", o->stats, NULL},
                           {"--outcome", o->outcome, NULL},
                           {"--trace", o->trace, NULL}};
    return outputs_check("run", in, n, out, 4, err);
}

/* Progress of a long run, on a terminal only: one line, rewritten at
 * most every quarter second. */
#define PROGRESS_SECONDS 0.25

static void show_progress(const sim_engine *e, cycle_t now, void *ctx)
{
    progress *p = ctx;
    double tokens = (double)sim_engine_tokens(e), t = progress_elapsed(p);
    progress_show(p, "cycle %llu, %.1f M token moves, %.1f M/s ", (unsigned long long)now,
                  tokens / 1e6, t > 0 ? tokens / t / 1e6 : 0);
}

/* With -o - the result is standard output, so the summary goes to stderr. */
static FILE *summary_stream(const run_opts *o)
{
    return o->out && !strcmp(o->out, "-") ? stderr : stdout;
}

/* A result this small is shown when no -o asks for a file. */
#define RESULT_SHOW 20

/* A result not written is listed when it has few entries. */
static void print_entries(const run_opts *o, const sam_graph *g, const tensor *t)
{
    const char *name = g->tensors[0].name;
    for (size_t i = 0; !o->out && t->nnz <= RESULT_SHOW && i < t->nnz; i++) {
        char value[32];
        text_format_double(value, t->vals[i]);
        printf("  %s(", name);
        for (int m = 0; m < t->order; m++)
            printf("%s%lld", m ? "," : "", (long long)t->crd[m][i]);
        printf(") = %s\n", value);
    }
}

static int write_result(const run_opts *o, const sam_graph *g, const graph_run *run,
                        sam_error *err)
{
    int sam = tensor_file_kind_of(o->out) == TENSOR_FILE_SAMDIR && strcmp(o->out, "-") &&
              run->result_format[0];
    tensor_file f = {.path = o->out, .name = g->tensors[0].name,
                     .format = sam ? run->result_format : NULL};
    return outputs_write_tensor(&f, &run->result, err);
}

static int write_trace(const run_opts *o, const sam_graph *g, const graph_run *run,
                       sam_error *err)
{
    return o->trace && graph_run_write_trace(run, g->path, &o->trace_opts, o->trace, err);
}

/* A completed run: its result, statistics and record written (all or,
 * as far as files can be taken back, none), the summary printed. Returns
 * the exit status. */
static int deliver(const run_opts *o, const sam_graph *g, graph_run *run, sam_error *err)
{
    outputs_record_result(&run->record, g->tensors[0].name, o->out, run->result.nnz);
    if (outcome_done(&run->record, g->path, err))
        return 1;
    if (o->out && write_result(o, g, run, err))
        return 1;
    if ((o->stats && sim_stats_write_rows(run->stats, run->cycles, NULL, o->stats, err)) ||
        write_trace(o, g, run, err) ||
        (o->outcome && outcome_write(&run->record, o->outcome, err))) {
        outputs_remove(o->trace);
        outputs_remove(o->stats);
        outputs_remove(o->out);
        return 1;
    }
    outcome_print(&run->record, summary_stream(o));
    print_entries(o, g, &run->result);
    return run->status;
}

/* A run that cannot complete: the report, and the statistics so far so
 * that the stall can be inspected. Returns the exit status, 2. */
static int stalled(const run_opts *o, const sam_graph *g, const graph_run *run, sam_error *err)
{
    fprintf(stderr, "samsim: %s: %s\n", g->path, run->report);
    if (o->stats && sim_stats_write_rows(run->stats, run->cycles, run->incomplete, o->stats, err))
        return 1;
    if (o->stats)
        fprintf(stderr, "samsim: statistics up to cycle %llu (marked %s) in %s\n",
                (unsigned long long)run->cycles, run->incomplete, o->stats);
    if (write_trace(o, g, run, err))
        return 1;
    if (o->trace)
        fprintf(stderr, "samsim: timelines up to cycle %llu in %s\n",
                (unsigned long long)run->cycles, o->trace);
    return 2;
}

/* The run, with its progress on a terminal. */
static int run_graph(run_opts *o, sam_graph *g, sam_error *err)
{
    progress shown;
    progress_init(&shown, !o->quiet && isatty(STDERR_FILENO) ? stderr : NULL, PROGRESS_SECONDS,
                  PROGRESS_SECONDS, NULL, NULL);
    o->req.file_settings = &o->file_settings;
    o->req.cli_settings = &o->cli_settings;
    o->req.stats = o->stats != NULL;
    o->req.trace = o->trace != NULL;
    o->req.trace_blocks = o->trace_opts.blocks != NULL;
    if (shown.out) {
        o->req.progress = show_progress;
        o->req.progress_ctx = &shown;
    }
    if (o->hw) {
        hw_defaults(&o->hardware);
        if (hw_read(o->hw, &o->hardware, err))
            return 1;
        o->req.hw = &o->hardware;
    }
    graph_run run;
    int rc = graph_run_do(g, &o->req, &run, err);
    progress_clear(&shown);
    if (rc == 0)
        rc = run.status == 2 ? stalled(o, g, &run, err) : deliver(o, g, &run, err);
    else
        rc = 1;
    graph_run_free(&run);
    return rc;
}
int cmd_run(int argc, char **argv)
{
    run_opts o;
    sam_error err;
    sam_graph g;
    if (argc > 0 && template_dir_is(argv[0]))
        return run_template(argc, argv);
    if (parse_args(argc, argv, &o, &err) || graph_read_dot(o.graph, &g, &err)) {
        free_opts(&o);
        return args_fail(&err);
    }
    int rc = check_outputs(&o, &g, &err) ? 1 : run_graph(&o, &g, &err);
    if (rc == 1)
        args_fail(&err);
    graph_free(&g);
    free_opts(&o);
    return rc;
}

/* The --hw keys not declared as parameters: one per tensor, or text. */
static const struct {
    const char *name, *about;
} tensor_keys[] = {
    {"place.T", "pe, llb,pe or cache: the buffers that hold tensor T's tiles (default llb,pe); "
                "cache: the LLB caches the fibers of operand T's outermost level that points "
                "touch"},
    {"layout.T", "coo, level letters (ds), tiled, tiled coo: how the memories store tensor T "
                 "(default its format)"},
    {"bytes.T.crd", "T's coordinate widths, one per level (4,0,4); bytes.T.ref its reference "
                    "widths, bytes.T.val its value width"},
    {"fit.llb", "what a refusal of a tile too large for the LLB adds; fit.pe for the PE buffer"},
};

static void print_hw_keys_man(FILE *f)
{
    fputs(".PP\nThe keys of \\-\\-hw FILE (lines key = value, # a comment):\n", f);
    param_print_man(f, hw_params);
    fputs(".RS\n.PD 0\n", f);
    for (size_t i = 0; i < sizeof tensor_keys / sizeof tensor_keys[0]; i++) {
        fputs(".TP 16\n.B ", f);
        troff_text(f, tensor_keys[i].name);
        fputc('\n', f);
        troff_text(f, tensor_keys[i].about);
        fputc('\n', f);
    }
    fputs(".PD\n.RE\n", f);
}

static void print_hw_keys_markdown(FILE *f)
{
    fputs("| key | unit | default | range | meaning |\n|---|---|---|---|---|\n", f);
    param_print_markdown(f, hw_params);
    for (size_t i = 0; i < sizeof tensor_keys / sizeof tensor_keys[0]; i++)
        fprintf(f, "| %s | | | | %s |\n", tensor_keys[i].name, tensor_keys[i].about);
}

/* The --hw keys, from the declarations, so that no help can miss one. */
static void print_hw_keys(FILE *f, cli_format format)
{
    if (format == CLI_MAN)
        print_hw_keys_man(f);
    else if (format == CLI_MARKDOWN)
        print_hw_keys_markdown(f);
    else {
        fprintf(f, "\n--hw FILE holds `key = value` lines (# starts a comment); the keys:\n");
        param_print_list(f, hw_params, 2);
        for (size_t i = 0; i < sizeof tensor_keys / sizeof tensor_keys[0]; i++)
            options_print_item(f, tensor_keys[i].name, tensor_keys[i].about);
    }
}

const cli_command cmd_run_command = {
    .name = "run",
    .run = cmd_run,
    .synopsis = "GRAPH.dot [-t NAME=FILE|NUMBER]... [options]",
    .about = "Simulates a SAM graph on tensors bound to the names of its comment. samsim run "
        "DIR runs a template directory (samsim template) and takes -t, -o, --stats, --outcome, "
        "--trace, --check, --engine and --quiet.",
    .options = run_options,
    .detail = "Operands that the graph scans under one index must have the same size there; "
        "otherwise the run is refused with a line naming the index, both tensors and both sizes.",
    .more = print_hw_keys,
};
