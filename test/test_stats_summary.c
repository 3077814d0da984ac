/* The statistics reader (sim/stats_table.c) and `samsim stats`: a
 * hand-made file whose answers are worked out below, every kind of
 * malformed input with its exact message, and a file from a real run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../sim/stats_table.h"
#include "test_util.h"

/* Columns in an order of their own, and one the reader does not know,
 * to show that columns are found by name. A run of 50 cycles:
 *
 *   A (root) --s1 ref--> B --s2 ref--> C --s3 val--> E
 *   A --s0 crd--> D       B --s4 crd--> E, F
 *   B --s5 repsig--> F    A --s6 (never pushed)--> F
 *
 * Blocks by busy: B 30 and C 30 (a tie: file order), E 25, F 20, A 10,
 * D 0. Streams by tokens: s2, s3, s4 (30 each, file order), s5 20, s0 12,
 * s1 12, s6 0. Control shares: s2 (8 stops + 1 empty + 1 done) / 30,
 * s5 (1 done + 4 repeat_stop) / 20 = 25%; idle shares: s2 20/50 = 40%,
 * s5 30/50 = 60%, s6 50/50. Critical chain: E finished last (45); its
 * inputs s3 from C (last push 42) and s4 from B (40): C; C's one input
 * is from B, B's from A, and A has none: A, B, C, E. */
static const char fixture[] =
    "note,row,id,kind,producer,readers,type,impl,tokens,data,stops,empty,done,repeat,"
    "repeat_stop,first_cycle,last_cycle,idle_between,idle_before,idle_after,busy,starved,"
    "blocked\n"
    "\"hello, world\",run,,,,,,,134,,,,,,,0,49,,,,,,\n"
    ",stream,s0,crd,A:crd,D:crd,,,12,10,1,0,1,0,0,0,11,0,0,38,,,\n"
    ",stream,s1,ref,A:ref,B:ref,,,12,10,1,0,1,0,0,0,11,0,0,38,,,\n"
    ",stream,s2,ref,B:ref,C:ref,,,30,20,8,1,1,0,0,1,40,10,1,9,,,\n"
    ",stream,s3,val,C:val,E:in1,,,30,20,8,1,1,0,0,2,42,11,2,7,,,\n"
    ",stream,s4,crd,B:crd,E:in2 F:crd,,,30,20,8,1,1,0,0,1,40,10,1,9,,,\n"
    ",stream,s5,repsig,B:repsig,F:repsig,,,20,0,0,0,1,15,4,5,30,6,5,19,,,\n"
    ",stream,s6,ref,A:extra,F:ref,,,0,0,0,0,0,0,0,,,0,50,0,,,\n"
    ",block,A,,,,fiberlookup,compressed,24,,,,,,,0,9,0,0,40,10,0,0\n"
    ",block,B,,,,fiberlookup,compressed,80,,,,,,,1,40,10,1,9,30,11,0\n"
    "\"\",\"block\",\"C\",,,,arrayvals,ideal,30,,,,,,,2,41,10,2,8,30,12,0\n"
    ",block,D,,,,fiberwrite,compressed,0,,,,,,,,,0,50,0,0,0,0\n"
    ",block,E,,,,mul,default,25,,,,,,,3,45,18,3,4,25,21,0\n"
    ",block,F,,,,repeat,default,20,,,,,,,5,30,6,5,19,20,11,0\n";

static char *write_fixture(char *dir, const char *text)
{
    return test_write_file(dir, "stats.csv", text);
}

static void test_read_fixture(void **state)
{
    (void)state;
    char *dir = test_tmpdir(), *path = write_fixture(dir, fixture);
    stats_table t;
    sam_error err;
    assert_int_equal(stats_table_read(path, &t, &err), 0);
    assert_int_equal(t.cycles, 50);
    assert_int_equal(t.tokens, 134);
    assert_int_equal(t.nstreams, 7);
    assert_int_equal(t.nblocks, 6);
    const stats_stream *s3 = &t.streams[3], *s4 = &t.streams[4], *s6 = &t.streams[6];
    assert_string_equal(s3->producer.node, "C");
    assert_string_equal(s3->producer.port, "val");
    assert_int_equal(s3->nreaders, 1);
    assert_string_equal(s3->readers[0].port, "in1");
    assert_int_equal(s4->nreaders, 2);
    assert_string_equal(s4->readers[1].node, "F");
    assert_string_equal(s4->readers[1].port, "crd");
    assert_true(s3->span.active);
    assert_int_equal(s3->span.last, 42);
    assert_false(s6->span.active);
    assert_int_equal(s6->span.idle_before, 50);
    const stats_block *c = &t.blocks[2], *d = &t.blocks[3];
    assert_string_equal(c->id, "C");
    assert_string_equal(c->type, "arrayvals");
    assert_string_equal(c->impl, "ideal");
    assert_int_equal(c->busy, 30);
    assert_int_equal(c->starved, 12);
    assert_int_equal(c->span.first, 2);
    assert_int_equal(c->line, 12);
    assert_false(d->span.active);
    stats_table_free(&t);
    free(path);
    test_tmpdir_remove(dir);
}

static void test_rankings(void **state)
{
    (void)state;
    char *dir = test_tmpdir(), *path = write_fixture(dir, fixture);
    stats_table t;
    sam_error err;
    assert_int_equal(stats_table_read(path, &t, &err), 0);
    int *blocks = stats_table_blocks_by_busy(&t, &err);
    int *streams = stats_table_streams_by_tokens(&t, &err);
    const char *block_order[] = {"B", "C", "E", "F", "A", "D"};
    const char *stream_order[] = {"s2", "s3", "s4", "s5", "s0", "s1", "s6"};
    for (int i = 0; i < 6; i++)
        assert_string_equal(t.blocks[blocks[i]].id, block_order[i]);
    for (int i = 0; i < 7; i++)
        assert_string_equal(t.streams[streams[i]].id, stream_order[i]);
    assert_float_equal(stats_block_utilisation(&t, &t.blocks[1]), 0.6, 1e-12);
    assert_float_equal(stats_block_utilisation(&t, &t.blocks[3]), 0.0, 1e-12);
    assert_float_equal(stats_stream_control_share(&t.streams[2]), 10.0 / 30, 1e-12);
    assert_float_equal(stats_stream_control_share(&t.streams[5]), 0.25, 1e-12);
    assert_float_equal(stats_stream_control_share(&t.streams[6]), 0.0, 1e-12);
    assert_float_equal(stats_stream_idle_share(&t, &t.streams[2]), 0.4, 1e-12);
    assert_float_equal(stats_stream_idle_share(&t, &t.streams[5]), 0.6, 1e-12);
    assert_float_equal(stats_stream_idle_share(&t, &t.streams[6]), 1.0, 1e-12);
    free(blocks);
    free(streams);
    stats_table_free(&t);
    free(path);
    test_tmpdir_remove(dir);
}

static void test_critical_chain(void **state)
{
    (void)state;
    char *dir = test_tmpdir(), *path = write_fixture(dir, fixture);
    stats_table t;
    sam_error err;
    assert_int_equal(stats_table_read(path, &t, &err), 0);
    int *chain, n;
    assert_int_equal(stats_table_critical_chain(&t, &chain, &n, &err), 0);
    const char *want[] = {"A", "B", "C", "E"};
    assert_int_equal(n, 4);
    for (int i = 0; i < n; i++)
        assert_string_equal(t.blocks[chain[i]].id, want[i]);
    free(chain);
    stats_table_free(&t);
    free(path);
    test_tmpdir_remove(dir);
}

/* `samsim stats`: the numbers above as printed, and --top. */
static void test_command(void **state)
{
    (void)state;
    char *dir = test_tmpdir(), *path = write_fixture(dir, fixture), *out = NULL;
    assert_int_equal(test_run_samsim(&out, NULL, "stats", path, "--top", "2", NULL), 0);
    assert_non_null(strstr(out, "run: 50 cycles, 134 token moves\n"));
    assert_non_null(strstr(out, "blocks by busy cycles (2 of 6)"));
    const char *b = strstr(out, "\n  B ");
    const char *c = strstr(out, "\n  C ");
    assert_non_null(b);
    assert_non_null(c);
    assert_true(b < c);
    const char *streams = strstr(out, "streams by tokens");
    const char *e = strstr(out, "\n  E ");
    assert_true(streams && e && e > streams);
    assert_non_null(strstr(b, "fiberlookup  compressed"));
    assert_non_null(strstr(b, "30   60.0%          11           0  1..40\n"));
    assert_non_null(strstr(streams, "streams by tokens (2 of 7)"));
    assert_non_null(strstr(out, "  s2      ref             30     33.3%   40.0%  "
                                "B:ref -> C:ref\n"));
    assert_non_null(strstr(out, "  s3      val             30     33.3%   40.0%  C:val -> "
                                "E:in1\n"));
    const char *chain = strstr(out, "critical chain");
    assert_non_null(chain);
    assert_non_null(strstr(chain, "  A     fiberlookup  last active cycle 9\n"
                                  "  B     fiberlookup  last active cycle 40\n"
                                  "  C     arrayvals    last active cycle 41\n"
                                  "  E     mul          last active cycle 45\n"));
    free(out);
    free(path);
    test_tmpdir_remove(dir);
}

/* ---- malformed input ---------------------------------------------------- */

/* The fixture with line `line` (1-based) replaced by text. */
static char *fixture_with(int line, const char *text)
{
    size_t size = sizeof fixture + strlen(text) + 1;
    char *s = malloc(size), *out = s;
    const char *p = fixture;
    for (int l = 1; *p; l++) {
        const char *end = strchr(p, '\n') + 1;
        if (l == line)
            out += sprintf(out, "%s\n", text);
        else
            out += sprintf(out, "%.*s", (int)(end - p), p);
        p = end;
    }
    return s;
}

/* Reading text fails with "PATH:" + want, and leaves nothing behind. */
static void assert_refused(const char *text, const char *want)
{
    char *dir = test_tmpdir(), *path = write_fixture(dir, text);
    stats_table t;
    sam_error err;
    assert_int_equal(stats_table_read(path, &t, &err), -1);
    char full[4400];
    snprintf(full, sizeof full, "%s%s", path, want);
    assert_string_equal(err.msg, full);
    assert_null(t.streams);
    assert_null(t.blocks);
    assert_int_equal(t.nstreams + t.nblocks, 0);
    free(path);
    test_tmpdir_remove(dir);
}

static void assert_line_refused(int line, const char *text, const char *want)
{
    char *s = fixture_with(line, text);
    assert_refused(s, want);
    free(s);
}

static void test_missing_column(void **state)
{
    (void)state;
    assert_line_refused(1, "note,row,id,kind,producer,readers,type,impl,tokens,data,stops,"
                           "empty,done,repeat,repeat_stop,first_cycle,last_cycle,idle_between,"
                           "idle_before,idle_after,bsy,starved,blocked",
                        ":1: the header has no column 'busy'");
}

static void test_not_a_number(void **state)
{
    (void)state;
    assert_line_refused(5, ",stream,s2,ref,B:ref,C:ref,,,3O,20,8,1,1,0,0,1,40,10,1,9,,,",
                        ":5: column tokens: '3O' is not a non-negative integer");
    assert_line_refused(11, ",block,B,,,,fiberlookup,compressed,80,,,,,,,1,40,10,1,9,-30,11,0",
                        ":11: column busy: '-30' is not a non-negative integer");
    assert_line_refused(13, ",block,D,,,,fiberwrite,compressed,0,,,,,,,,,0,,0,0,0,0",
                        ":13: column idle_before: '' is not a non-negative integer");
}

static void test_unknown_kind(void **state)
{
    (void)state;
    assert_line_refused(4, ",channel,s1,ref,A:ref,B:ref,,,12,10,1,0,1,0,0,0,11,0,0,38,,,",
                        ":4: unknown row kind 'channel' (run, stream or block)");
}

static void test_field_count(void **state)
{
    (void)state;
    assert_line_refused(3, ",stream,s0,crd,A:crd,D:crd,,,12,10,1,0,1,0,0,0,11,0,0,38,,",
                        ":3: 22 fields where the header has 23");
    assert_line_refused(2, "\"hello, world\",run,,,,,,,134,,,,,,,0,49,,,,,,,,",
                        ":2: 25 fields where the header has 23");
}

static void test_other_problems(void **state)
{
    (void)state;
    assert_line_refused(7, ",stream,s4,crd,B:crd,E:in2 :F,,,30,20,8,1,1,0,0,1,40,10,1,9,,,",
                        ":7: column readers: 'E:in2 :F' is not NODE:PORT");
    assert_line_refused(3, ",stream,s0,crd,A,D:crd,,,12,10,1,0,1,0,0,0,11,0,0,38,,,",
                        ":3: column producer: 'A' is not NODE:PORT");
    assert_line_refused(12, ",block,B,,,,fiberlookup,compressed,80,,,,,,,1,40,10,1,9,30,11,0",
                        ":12: a second row for block B");
    assert_line_refused(3, ",run,,,,,,,134,,,,,,,0,49,,,,,,",
                        ":3: a second run row");
    assert_line_refused(2, ",stream,s0,crd,A:crd,D:crd,,,12,10,1,0,1,0,0,0,11,0,0,38,,,",
                        ": no run row");
    assert_line_refused(7, ",stream,\"s5,repsig,B:repsig,F:repsig,,,20,0,0,0,1,15,4,5,30,6,5,19,,,",
                        ":12: malformed CSV: a quote out of place or unclosed");
    assert_line_refused(15, ",block,\"F,,,,repeat,default,20,,,,,,,5,30,6,5,19,20,11,0",
                        ":15: malformed CSV: a quote out of place or unclosed");
    assert_line_refused(7, ",stream,s\"5,repsig,B:repsig,F:repsig,,,20,0,0,0,1,15,4,5,30,6,5,19,,,",
                        ":7: malformed CSV: a quote out of place or unclosed");
    assert_refused("", ": empty file: no header");
}

static void test_missing_file(void **state)
{
    (void)state;
    stats_table t;
    sam_error err;
    assert_int_equal(stats_table_read("/nonexistent/stats.csv", &t, &err), -1);
    assert_string_equal(err.msg, "/nonexistent/stats.csv: cannot open: No such file or directory");
}

static void test_command_errors(void **state)
{
    (void)state;
    char *dir = test_tmpdir(), *bad = fixture_with(4, ",chan,s1"), *se = NULL;
    char *path = write_fixture(dir, bad);
    assert_int_equal(test_run_samsim(NULL, &se, "stats", path, NULL), 1);
    assert_non_null(strstr(se, "stats.csv:4: 3 fields where the header has 23"));
    assert_ptr_equal(strchr(se, '\n'), se + strlen(se) - 1);
    free(se);
    se = NULL;
    assert_int_equal(test_run_samsim(NULL, &se, "stats", path, "--top", "0", NULL), 1);
    assert_non_null(strstr(se, "--top"));
    free(se), free(bad), free(path);
    test_tmpdir_remove(dir);
}

/* ---- a real run ------------------------------------------------------- */

/* The file `samsim run --stats` writes reads back, agrees with the run's
 * summary, and `samsim stats` summarises it. */
static void test_real_run(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    char *graph = test_path(dir, "g.dot"), *b = test_path(dir, "B.mtx");
    char *csv = test_path(dir, "s.csv"), *out = NULL, bind[4200];
    assert_int_equal(test_run_samsim(NULL, NULL, "compile", "X(i,j)=B(i,j)", "-f=X:ss", "-f=B:ss",
                                     "-o", graph, NULL),
                     0);
    assert_int_equal(test_run_samsim(NULL, NULL, "gen", "urandom", "--shape", "30x20",
                                     "--density", "0.1", "--seed", "4", "-o", b, NULL),
                     0);
    snprintf(bind, sizeof bind, "B=%s", b);
    assert_int_equal(test_run_samsim(&out, NULL, "run", graph, "-t", bind, "--stats", csv, NULL),
                     0);
    stats_table t;
    sam_error err;
    assert_int_equal(stats_table_read(csv, &t, &err), 0);
    assert_int_equal(t.cycles, test_summary(out, "cycles"));
    assert_int_equal(t.tokens, test_summary(out, "tokens"));
    assert_int_equal(t.nblocks, 6);
    assert_int_equal(t.nstreams, 5);
    uint64_t sum = 0;
    for (int i = 0; i < t.nstreams; i++)
        sum += t.streams[i].tokens;
    assert_int_equal(sum, t.tokens);
    for (int i = 0; i < t.nblocks; i++) {
        const stats_block *k = &t.blocks[i];
        assert_int_equal(k->busy + k->starved + k->blocked + k->span.idle_after, t.cycles);
    }
    int *chain, n;
    assert_int_equal(stats_table_critical_chain(&t, &chain, &n, &err), 0);
    assert_true(n >= 2);
    assert_string_equal(t.blocks[chain[0]].id, "0"); /* the root scanner */
    free(chain);
    stats_table_free(&t);
    free(out);
    out = NULL;
    assert_int_equal(test_run_samsim(&out, NULL, "stats", csv, NULL), 0);
    assert_non_null(strstr(out, "critical chain"));
    free(out), free(graph), free(b), free(csv);
    test_tmpdir_remove(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_read_fixture),   cmocka_unit_test(test_rankings),
        cmocka_unit_test(test_critical_chain), cmocka_unit_test(test_command),
        cmocka_unit_test(test_missing_column), cmocka_unit_test(test_not_a_number),
        cmocka_unit_test(test_unknown_kind),   cmocka_unit_test(test_field_count),
        cmocka_unit_test(test_other_problems), cmocka_unit_test(test_missing_file),
        cmocka_unit_test(test_command_errors), cmocka_unit_test(test_real_run),
    };
    return cmocka_run_group_tests_name("stats_summary", tests, NULL, NULL);
}
