/* samsim timeline and samsim stats --stalls, on the hand-worked trace of
 * test_trace.c (a copy x(i) = b(i) whose writer takes one coordinate
 * every 3 cycles, 11 cycles; its slices are worked out there): gnuplot's
 * SVG holds every track's name and, in each state's plot, its legend
 * entry and a box per slice of that state; a window cuts them; PNG and
 * standard output; what is refused (a window beyond the data, JSON that
 * is truncated or not a trace, a trace without complete events, another
 * extension, no gnuplot) leaves one line and no file; the stalls listed
 * are the hand-worked ones, longest first. Through the library: the
 * columns a track's slices are summed into and the boxes they make, a
 * trace of another tool (the bare array form, several processes, nested
 * slices, microseconds), many slice names sharing a colour, and a long
 * trace of finely interleaved states drawing as one box. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../report/timeline_figure.h"
#include "test_util.h"

/* The names of the hand-worked run's tracks, in their order. */
static const char *const track_names[] = {"0 fiberlookup i b", "1 arrayvals b",
                                          "2 fiberwrite i x", "3 fiberwrite x"};

/* The hand-worked run's trace, dir/trace.json; its path, malloc'd. The
 * graph is dir/copy.gv, the process name in the trace. */
static char *hand_worked_trace(const char *dir)
{
    char *graph = test_compile_to(dir, "copy", "x(i)=b(i) -f=x:s -f=b:s");
    char *data = test_write_file(dir, "b.tns", "2 1.5\n5 2.5\n");
    char *config = test_write_file(dir, "slow.cfg", "node.2.ii = 3\n");
    char *trace = test_path(dir, "trace.json"), bind[512];
    snprintf(bind, sizeof bind, "b=%s", data);
    char *out = NULL, *err = NULL;
    int rc = test_run_samsim(&out, &err, "run", graph, "-t", bind, "--depth", "1", "--config",
                             config, "--trace", trace, NULL);
    if (rc)
        fail_msg("run: exit %d: %s", rc, err);
    assert_int_equal(test_summary(out, "cycles"), 11);
    free(out), free(err), free(graph), free(data), free(config);
    return trace;
}

/* gnuplot's SVG puts each plot (a state) in <g id="gnuplot_plot_N">: its
 * legend text, the legend's sample box and a <polygon> per box. */
static void assert_state(const char *svg, int n, const char *state, int boxes)
{
    char id[64], text[64];
    snprintf(id, sizeof id, "<g id=\"gnuplot_plot_%d\"", n);
    const char *from = strstr(svg, id);
    if (!from)
        fail_msg("the SVG has no plot %d (%s)", n, state);
    const char *to = strstr(from + 1, "<g id=\"gnuplot_plot_");
    to = to ? to : svg + strlen(svg);
    snprintf(text, sizeof text, "<text>%s</text>", state);
    if (test_count(from, to, text) != 1)
        fail_msg("plot %d has no legend entry %s", n, state);
    int got = test_count(from, to, "<polygon");
    if (got != boxes + 1)
        fail_msg("plot %d (%s): %d boxes, expected %d", n, state, got - 1, boxes);
}

static void assert_tracks(const char *svg)
{
    for (size_t k = 0; k < sizeof track_names / sizeof track_names[0]; k++) {
        char text[64];
        snprintf(text, sizeof text, "<text>%s</text>", track_names[k]);
        assert_contains(svg, text);
    }
}

/* samsim timeline with argv (NULL-terminated) must succeed silently. */
static void draw(const char *const *argv, char **out)
{
    char *se = NULL;
    int rc = test_run_samsim_argv(out, &se, argv);
    if (rc)
        fail_msg("timeline: exit %d: %s", rc, se);
    assert_string_equal(se, "");
    free(se);
}

/* The whole run: every track, and a box per slice of test_trace.c's
 * hand-worked list: 13 busy, 4 blocked, 8 starved. */
static void test_tracks_and_states(void **state)
{
    (void)state;
    test_require_gnuplot();
    char *dir = test_tmpdir(), *trace = hand_worked_trace(dir);
    char *svg_path = test_path(dir, "t.svg"), *graph = test_path(dir, "copy.gv"), *out = NULL;
    const char *const argv[] = {"timeline", trace, "-o", svg_path, NULL};
    draw(argv, &out);
    assert_string_equal(out, "");
    char *svg = test_read_file(svg_path), title[4200];
    assert_tracks(svg);
    assert_state(svg, 1, "busy", 13);
    assert_state(svg, 2, "blocked", 4);
    assert_state(svg, 3, "starved", 8);
    assert_null(strstr(svg, "gnuplot_plot_4"));
    assert_contains(svg, "<text>cycles</text>");
    snprintf(title, sizeof title, "<text>%s</text>", graph);
    assert_contains(svg, title);
    free(svg), free(svg_path), free(trace), free(graph), free(out);
    test_tmpdir_remove(dir);
}

/* Cycles 2.5 to 7 (slices cut at both ends): busy 2-3, 5-6 of the
 * scanner, 3-4, 6-7 of the array, the writer's one, 2-3, 4-5 of the value
 * writer; blocked 3-5, 6-7 of the scanner, 2-3 of the array; starved 4-6
 * of the array, 3-4, 5-7 of the value writer. */
static void test_window(void **state)
{
    (void)state;
    test_require_gnuplot();
    char *dir = test_tmpdir(), *trace = hand_worked_trace(dir);
    char *svg_path = test_path(dir, "w.svg"), *out = NULL;
    const char *const argv[] = {"timeline", trace, "-o", svg_path, "--from", "2.5", "--to", "7",
                                "--title", "cycles 2.5 to 7", NULL};
    draw(argv, &out);
    char *svg = test_read_file(svg_path);
    assert_tracks(svg);
    assert_state(svg, 1, "busy", 7);
    assert_state(svg, 2, "blocked", 3);
    assert_state(svg, 3, "starved", 3);
    assert_contains(svg, "<text>cycles 2.5 to 7</text>");
    free(svg), free(svg_path), free(trace), free(out);
    test_tmpdir_remove(dir);
}

/* PNG by the extension; '-' is SVG on standard output. */
static void test_png_and_standard_output(void **state)
{
    (void)state;
    test_require_gnuplot();
    char *dir = test_tmpdir(), *trace = hand_worked_trace(dir);
    char *png = test_path(dir, "t.png"), *out = NULL;
    const char *const to_png[] = {"timeline", trace, "-o", png, NULL};
    draw(to_png, &out);
    free(out);
    FILE *f = fopen(png, "rb");
    assert_non_null(f);
    unsigned char magic[8] = {0};
    assert_int_equal(fread(magic, 1, 8, f), 8);
    fclose(f);
    assert_memory_equal(magic, "\x89PNG\r\n\x1a\n", 8);
    const char *const to_stdout[] = {"timeline", trace, "-o", "-", NULL};
    draw(to_stdout, &out);
    assert_contains(out, "<svg");
    assert_tracks(out);
    free(out), free(png), free(trace);
    test_tmpdir_remove(dir);
}

/* samsim argv must fail with exactly "samsim: want" on one line, print
 * nothing on standard output and leave no file at path. */
static void expect_refused(const char *const *argv, const char *want, const char *path)
{
    char *out = NULL, *se = NULL, line[4200];
    assert_int_equal(test_run_samsim_argv(&out, &se, argv), 1);
    snprintf(line, sizeof line, "samsim: %s\n", want);
    assert_string_equal(se, line);
    assert_string_equal(out, "");
    assert_false(test_exists(path));
    free(out), free(se);
}

/* samsim timeline FILE -o dir/x.svg [option value] must be refused with
 * "FILE[:line]: " and message (want_file 1) or message alone. */
static void expect_timeline_refused(const char *dir, const char *file, const char *option,
                                    const char *value, int want_file, const char *message)
{
    char *svg = test_path(dir, "x.svg"), want[4200];
    const char *argv[] = {"timeline", file, "-o", svg, option, value, NULL};
    if (want_file)
        snprintf(want, sizeof want, "%s%s", file, message);
    else
        snprintf(want, sizeof want, "%s", message);
    expect_refused(argv, want, svg);
    free(svg);
}

static void test_refusals(void **state)
{
    (void)state;
    char *dir = test_tmpdir(), *trace = hand_worked_trace(dir);
    expect_timeline_refused(dir, trace, "--from", "11", 1,
                            ": --from 11 is not before the trace's end, 11 cycles");
    expect_timeline_refused(dir, trace, "--to", "0", 1,
                            ": --to 0 is not after the trace's start, 0 cycles");
    char *svg = test_path(dir, "x.svg");
    const char *const beyond[] = {"timeline", trace, "-o", svg, "--from", "20", "--to", "30",
                                  NULL};
    char want[4200];
    snprintf(want, sizeof want, "%s: no slice between 20 and 30 (its slices span 0 to 11 cycles)",
             trace);
    expect_refused(beyond, want, svg);
    const char *const empty[] = {"timeline", trace, "-o", svg, "--from", "5", "--to", "5", NULL};
    expect_refused(empty, "timeline: --from must be below --to", svg);
    expect_timeline_refused(dir, trace, "--from", "nan", 0,
                            "--from: 'nan' is not a finite number");
    char *pdf = test_path(dir, "x.pdf");
    const char *const other[] = {"timeline", trace, "-o", pdf, NULL};
    snprintf(want, sizeof want, "%s: unknown output format (use .svg or .png)", pdf);
    expect_refused(other, want, pdf);
    const char *const no_out[] = {"timeline", trace, NULL};
    expect_refused(no_out,
                   "usage: samsim timeline FILE.json -o FILE.svg|FILE.png [--from T] [--to T] "
                   "[--title TEXT] (samsim help timeline)", svg);

    /* Cut inside line 7's event (busy 2 1 of the scanner), after its tid;
     * then after line 2's event and its comma. */
    char *json = test_read_file(trace);
    *strstr(json, "\"ts\":2,") = '\0';
    char *cut = test_write_file(dir, "cut.json", json);
    expect_timeline_refused(dir, cut, NULL, NULL, 1,
                            ":7: not valid JSON: string or '}' expected near end of file");
    *strstr(json, "{\"name\":\"thread_name\"") = '\0';
    char *comma = test_write_file(dir, "comma.json", json);
    expect_timeline_refused(dir, comma, NULL, NULL, 1,
                            ":3: not valid JSON: unexpected token near end of file");
    free(json);
    static const struct {
        const char *name, *text, *message;
    } bad[] = {
        {"number.json", "42\n", ":1: not a trace: a JSON object with traceEvents expected"},
        {"empty.json", "", ": empty file: not a trace"},
        {"other.json", "{\"otherData\": {\"cycles\": 3}}", ": no traceEvents: not a trace"},
        {"no_x.json",
         "{\"traceEvents\": [\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":1,"
         "\"args\":{\"name\":\"a\"}},\n{\"name\":\"b\",\"ph\":\"B\",\"pid\":1,\"tid\":1,"
         "\"ts\":0}]}",
         ": no complete (\"X\") events: no slices to show"},
        {"no_dur.json", "{\"traceEvents\": [\n{\"ph\":\"X\",\"name\":\"a\",\"ts\":1,\"dur\":2},"
                        "\n{\"ph\":\"X\",\"name\":\"a\",\"ts\":3}]}",
         ":3: a complete (\"X\") event whose dur is not a number >= 0"},
        {"tid.json", "{\"traceEvents\": [{\"ph\":\"X\",\"name\":\"a\",\"ts\":1,\"dur\":2,"
                     "\"tid\":\"main\"}]}",
         ":1: an event whose tid is not an integer -2147483648..2147483647"},
        {"events.json", "{\"traceEvents\": {\"ph\": \"X\"}}", ":1: traceEvents is not an array"},
        {"open.json", "{\"traceEvents\": [\n{\"ph\":\"X\",\"name\":\"a\",\"ts\":0,\"dur\":1}\n",
         ":3: the file ends inside traceEvents"},
        {"after.json", "{\"traceEvents\": []}\n{}", ":2: more after the trace"},
        {"twice.json", "{\"traceEvents\": [],\n\"traceEvents\": []}", ":2: a second traceEvents"},
        {"phase.json", "[{\"name\": \"a\"}]", ":1: an event without a ph (its phase) string"},
        {"huge.json", "[{\"ph\":\"X\",\"name\":\"a\",\"ts\":1e308,\"dur\":1e308}]",
         ":1: a complete (\"X\") event that ends past the largest number"},
        {"instant.json", "[{\"ph\":\"X\",\"name\":\"a\",\"ts\":3,\"dur\":0}]",
         ": its slices span no time (all at 3 microseconds): nothing to draw"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *file = test_write_file(dir, bad[i].name, bad[i].text);
        expect_timeline_refused(dir, file, NULL, NULL, 1, bad[i].message);
        free(file);
    }
    free(cut), free(comma), free(svg), free(pdf), free(trace);
    test_tmpdir_remove(dir);
}

/* Without gnuplot on PATH: one line, no picture. */
static void test_gnuplot_missing(void **state)
{
    (void)state;
    char *dir = test_tmpdir(), *trace = hand_worked_trace(dir);
    char *svg = test_path(dir, "t.svg"), *bin = test_path(dir, "bin");
    assert_int_equal(mkdir(bin, 0755), 0);
    char *old = strdup(getenv("PATH") ? getenv("PATH") : "");
    assert_non_null(old);
    assert_int_equal(setenv("PATH", bin, 1), 0);
    const char *const argv[] = {"timeline", trace, "-o", svg, NULL};
    expect_refused(argv, "timeline: gnuplot not found (scripts/install-deps installs gnuplot-nox)",
                   svg);
    assert_int_equal(setenv("PATH", old, 1), 0);
    free(old), free(svg), free(bin), free(trace);
    test_tmpdir_remove(dir);
}

/* ---- through the library ----------------------------------------------- */

static void read_trace(const char *dir, const char *text, timeline *t)
{
    char *path = test_write_file(dir, "t.json", text);
    sam_error err;
    if (timeline_read(path, t, &err))
        fail_msg("%s", err.msg);
    free(path);
}

static void assert_box(const timeline_figure *f, size_t i, int track, const char *name,
                       double from, double to)
{
    assert_true(i < f->nboxes);
    const timeline_box *b = &f->boxes[i];
    if (b->track != track || strcmp(f->legend[b->colour], name) || b->from != from ||
        b->to != to)
        fail_msg("box %zu: track %d %s %g..%g, expected track %d %s %g..%g", i, b->track,
                 f->legend[b->colour], b->from, b->to, track, name, from, to);
}

/* Four columns of 5 over 0..20. Track a: busy fills columns 0 and 1 (one
 * box); in column 2 blocked fills 4, starved 1; in column 3 busy fills
 * 1 of 5, which is still the most. Track b: starved 2..3 in column 0,
 * nothing after. */
static void test_columns(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    timeline t;
    read_trace(dir,
               "{\"traceEvents\": [\n"
               "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":2,\"args\":{\"name\":\"b\"}},\n"
               "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":1,\"args\":{\"name\":\"a\"}},\n"
               "{\"name\":\"busy\",\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":10},\n"
               "{\"name\":\"blocked\",\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":4},\n"
               "{\"name\":\"starved\",\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":2,\"dur\":1},\n"
               "{\"name\":\"starved\",\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":14,\"dur\":1},\n"
               "{\"name\":\"busy\",\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":15,\"dur\":1}\n"
               "], \"otherData\": {\"time\": \"cycles\", \"cycles\": 20}}",
               &t);
    assert_int_equal(t.ntracks, 2);
    assert_string_equal(t.tracks[0].name, "a");
    assert_true(t.start == 0 && t.end == 20);
    assert_string_equal(t.unit, "cycles");
    const timeline_view v = {.from = 0, .to = 20, .columns = 4, .out = "x.svg"};
    timeline_figure f;
    sam_error err;
    assert_int_equal(timeline_figure_make(&t, &v, &f, &err), 0);
    assert_int_equal(f.nboxes, 4);
    assert_box(&f, 0, 0, "busy", 0, 10);
    assert_box(&f, 1, 0, "blocked", 10, 15);
    assert_box(&f, 2, 0, "busy", 15, 20);
    assert_box(&f, 3, 1, "starved", 0, 5);
    timeline_figure_free(&f);
    timeline_free(&t);
    test_tmpdir_remove(dir);
}

/* Another tool's trace: the bare array, its closing bracket left off as
 * the format allows; two processes; a thread without a name; slices
 * nested and out of order; no otherData, so microseconds. Tracks go by
 * pid, then sort index (those with one first), then tid. */
static void test_foreign_trace(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    timeline t;
    read_trace(dir,
               "[{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":2,\"tid\":5,\"args\":{\"name\":\"io\"}},\n"
               "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":2,\"args\":{\"name\":\"server\"}},\n"
               "{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":2,\"tid\":9,"
               "\"args\":{\"sort_index\":-1}},\n"
               "{\"name\":\"parse\",\"ph\":\"X\",\"pid\":2,\"tid\":5,\"ts\":1700000000.5,\"dur\":2.25},\n"
               "{\"name\":\"request\",\"ph\":\"X\",\"pid\":2,\"tid\":5,\"ts\":1700000000.25,\"dur\":10},\n"
               "{\"name\":\"tick\",\"ph\":\"i\",\"pid\":2,\"tid\":5,\"ts\":1700000001},\n"
               "{\"name\":\"gc\",\"ph\":\"X\",\"pid\":1,\"tid\":7,\"ts\":1700000003,\"dur\":1},\n"
               "{\"name\":\"poll\",\"ph\":\"X\",\"pid\":2,\"tid\":9,\"ts\":1700000004,\"dur\":0.5},\n",
               &t);
    assert_int_equal(t.ntracks, 3);
    assert_int_equal(t.nprocesses, 2);
    char label[64];
    const char *const want[] = {"pid 1: tid 7", "pid 2: tid 9", "pid 2: io"};
    for (int k = 0; k < 3; k++) {
        timeline_track_label(&t, k, label, sizeof label);
        assert_string_equal(label, want[k]);
    }
    assert_string_equal(t.unit, "microseconds");
    assert_string_equal(t.process, "server");
    assert_true(t.start == 1700000000.25 && t.end == 1700000010.25);
    const timeline_track *io = &t.tracks[2];
    assert_int_equal(io->nslices, 2);
    assert_string_equal(t.names[io->slices[0].name], "request");
    assert_true(io->slices[1].ts == 1700000000.5 && io->slices[1].dur == 2.25);
    const timeline_view v = {.from = t.start, .to = t.end, .columns = 4, .out = "x.svg"};
    timeline_figure f;
    sam_error err;
    assert_int_equal(timeline_figure_make(&t, &v, &f, &err), 0);
    /* Columns of 2.5: request fills all of io's (parse within it). */
    assert_box(&f, f.nboxes - 1, 2, "request", t.start, t.end);
    timeline_figure_free(&f);
    timeline_free(&t);
    test_tmpdir_remove(dir);
}

/* 14 names, n0 the shortest: the 11 longest get their colours, the other
 * three share "others". */
static void test_many_names(void **state)
{
    (void)state;
    char *dir = test_tmpdir(), text[4096];
    int n = snprintf(text, sizeof text, "{\"traceEvents\": [");
    for (int i = 0; i < 14; i++)
        n += snprintf(text + n, sizeof text - (size_t)n,
                      "%s{\"name\":\"n%d\",\"ph\":\"X\",\"tid\":%d,\"ts\":0,\"dur\":%d}",
                      i ? "," : "", i, i, i + 1);
    snprintf(text + n, sizeof text - (size_t)n, "]}");
    timeline t;
    read_trace(dir, text, &t);
    const timeline_view v = {.from = 0, .to = 14, .out = "x.svg"};
    timeline_figure f;
    sam_error err;
    assert_int_equal(timeline_figure_make(&t, &v, &f, &err), 0);
    assert_int_equal(f.ncolours, TIMELINE_COLOURS);
    assert_string_equal(f.legend[0], "n13");
    assert_string_equal(f.legend[10], "n3");
    assert_string_equal(f.legend[11], "others");
    for (int i = 0; i < 3; i++)
        assert_int_equal(f.colour_of[i], 11);
    timeline_figure_free(&f);
    timeline_free(&t);
    test_tmpdir_remove(dir);
}

/* 20,000 busy slices of 3 cycles, starved a cycle between: however fine,
 * busy fills most of every column, so the track is one box. */
static void test_long_trace_is_one_box(void **state)
{
    (void)state;
    char *dir = test_tmpdir(), *path = test_path(dir, "long.json");
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("{\"traceEvents\": [\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":1,"
          "\"args\":{\"name\":\"scanner\"}}", f);
    for (int i = 0; i < 20000; i++)
        fprintf(f, ",\n{\"name\":\"busy\",\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":3},"
                   "\n{\"name\":\"starved\",\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":1}",
                4 * i, 4 * i + 3);
    fputs("\n]}\n", f);
    assert_int_equal(fclose(f), 0);
    timeline t;
    sam_error err;
    if (timeline_read(path, &t, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(t.nslices, 40000);
    const timeline_view v = {.from = t.start, .to = t.end, .out = "x.svg"};
    timeline_figure fig;
    assert_int_equal(timeline_figure_make(&t, &v, &fig, &err), 0);
    assert_int_equal(fig.nboxes, 1);
    assert_box(&fig, 0, 0, "busy", 0, 80000);
    timeline_figure_free(&fig);
    timeline_free(&t);
    free(path);
    test_tmpdir_remove(dir);
}

/* ---- samsim stats --stalls --------------------------------------------- */

/* The hand-worked stalls, longest first, then earliest, then by track. */
static const char *const stall_rows[] = {
    "  3 fiberwrite x     starved             0             2\n",
    "  0 fiberlookup i b  blocked             3             2\n",
    "  1 arrayvals b      starved             4             2\n",
    "  3 fiberwrite x     starved             5             2\n",
    "  0 fiberlookup i b  blocked             6             2\n",
    "  1 arrayvals b      starved             7             2\n",
    "  3 fiberwrite x     starved             8             2\n",
    "  1 arrayvals b      starved             0             1\n",
    "  2 fiberwrite i x   starved             0             1\n",
    "  0 fiberlookup i b  blocked             1             1\n",
    "  1 arrayvals b      blocked             2             1\n",
    "  3 fiberwrite x     starved             3             1\n",
};

/* What --stalls prints for the first n rows of the 12. */
static char *stall_listing(const char *trace, int n)
{
    size_t size = 8192;
    char *text = malloc(size);
    assert_non_null(text);
    int k = snprintf(text, size,
                     "longest stalls of %s (%d of 12 blocked and starved slices; in cycles):\n"
                     "  track              state            from      duration\n",
                     trace, n);
    for (int i = 0; i < n; i++)
        k += snprintf(text + k, size - (size_t)k, "%s", stall_rows[i]);
    return text;
}

static void expect_stalls(const char *trace, const char *top, int n)
{
    char *out = NULL, *se = NULL;
    const char *argv[] = {"stats", "--stalls", trace, top ? "--top" : NULL, top, NULL};
    assert_int_equal(test_run_samsim_argv(&out, &se, argv), 0);
    char *want = stall_listing(trace, n);
    assert_string_equal(out, want);
    assert_string_equal(se, "");
    free(want), free(out), free(se);
}

/* --top of the 12, and a trace without a stall. */
static void test_stalls(void **state)
{
    (void)state;
    char *dir = test_tmpdir(), *trace = hand_worked_trace(dir);
    expect_stalls(trace, "3", 3);
    expect_stalls(trace, NULL, 10);
    expect_stalls(trace, "20", 12);
    char *busy = test_write_file(dir, "busy.json", "[{\"ph\":\"X\",\"name\":\"busy\","
                                                   "\"ts\":0,\"dur\":5}]"), want[4200];
    char *out = NULL;
    assert_int_equal(test_run_samsim(&out, NULL, "stats", "--stalls", busy, NULL), 0);
    snprintf(want, sizeof want, "longest stalls of %s: none (no blocked or starved slice)\n",
             busy);
    assert_string_equal(out, want);
    free(out), free(busy), free(trace);
    test_tmpdir_remove(dir);
}

/* Beside a statistics file: its summary, a blank line, the stalls; a bad
 * trace prints neither. */
static void test_stalls_after_summary(void **state)
{
    (void)state;
    char *dir = test_tmpdir(), *trace = hand_worked_trace(dir);
    char *graph = test_path(dir, "copy.gv"), *data = test_path(dir, "b.tns");
    char *config = test_path(dir, "slow.cfg"), *stats = test_path(dir, "s.csv"), bind[512];
    snprintf(bind, sizeof bind, "b=%s", data);
    assert_int_equal(test_run_samsim(NULL, NULL, "run", graph, "-t", bind, "--depth", "1",
                                     "--config", config, "--stats", stats, NULL), 0);
    char *summary = NULL, *both = NULL, *listing = stall_listing(trace, 2);
    assert_int_equal(test_run_samsim(&summary, NULL, "stats", stats, "--top", "2", NULL), 0);
    assert_int_equal(test_run_samsim(&both, NULL, "stats", stats, "--stalls", trace, "--top", "2",
                                     NULL), 0);
    size_t n = strlen(summary);
    assert_int_equal(strncmp(both, summary, n), 0);
    assert_int_equal(both[n], '\n');
    assert_string_equal(both + n + 1, listing);
    char *bad = test_write_file(dir, "bad.json", "{\"traceEvents\": [}");
    const char *const argv[] = {"stats", stats, "--stalls", bad, NULL};
    char want[4200];
    snprintf(want, sizeof want, "%s:1: not valid JSON: unexpected token near '}'", bad);
    expect_refused(argv, want, "/nonexistent");
    free(summary), free(both), free(listing), free(bad);
    free(trace), free(graph), free(data), free(config), free(stats);
    test_tmpdir_remove(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tracks_and_states),
        cmocka_unit_test(test_window),
        cmocka_unit_test(test_png_and_standard_output),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_gnuplot_missing),
        cmocka_unit_test(test_columns),
        cmocka_unit_test(test_foreign_trace),
        cmocka_unit_test(test_many_names),
        cmocka_unit_test(test_long_trace_is_one_box),
        cmocka_unit_test(test_stalls),
        cmocka_unit_test(test_stalls_after_summary),
    };
    return cmocka_run_group_tests_name("timeline", tests, NULL, NULL);
}
