/* The statistics reader (report/stats_table.c) and `samsim stats`: a
 * hand-made file whose answers are worked out below, every kind of
 * malformed input with its exact message, and a file from a real run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../report/stats_table.h"
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
    assert_int_equal(t.nmemories + t.nlevels, 0); /* a file from before tiled runs */
    assert_null(t.memories);
    assert_null(t.levels);
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
    assert_null(strstr(out, "memories"));
    assert_null(strstr(out, "tensors by tiling level"));
    free(out);
    free(path);
    test_tmpdir_remove(dir);
}

/* ---- a tiled run ------------------------------------------------------ */

/* A tiled run of 100 cycles on two PEs, the columns in the writer's order:
 * one block, then the memories DRAM, LLB and PE and the tensors B and X at
 * tiling levels 0 (in the LLB) and 1 (in the PE buffer). Busy shares of
 * the memories: dram 40 / (1 x 100), llb 25 / (1 x 100), pe 30 / (2 x 100)
 * = 15%. DRAM has no peak; the LLB held 4096 of 8192 bytes at most, a PE
 * buffer 1852 of 4096 (45.2%). */
static const char tiled[] =
    "row,id,type,impl,producer,readers,kind,tokens,data,stops,empty,done,repeat,repeat_stop,"
    "first_cycle,last_cycle,idle_between,idle_before,idle_after,busy,starved,blocked,units,"
    "level,memory,bytes_read,bytes_written,tiles_fetched,tiles_skipped,peak_bytes,"
    "capacity_bytes\n"
    "run,,,,,,,40,,,,,,,0,99,,,,,,,,,,,,,,,\n"
    "block,A,fiberlookup,compressed,,,,40,,,,,,,0,79,0,0,20,150,20,10,,,,,,,,,\n"
    "memory,dram,,,,,,,,,,,,,,,,,,40,,,1,,,5000,1200,,,,\n"
    "memory,llb,,,,,,,,,,,,,,,,,,25,,,1,,,3000,1200,,,4096,8192\n"
    "memory,pe,,,,,,,,,,,,,,,,,,30,,,2,,,0,0,,,1852,4096\n"
    "tensor,B,,,,,,,,,,,,,,,,,,,,,,0,llb,2000,0,4,1,1024,\n"
    "tensor,B,,,,,,,,,,,,,,,,,,,,,,1,pe,1500,0,12,3,512,\n"
    "tensor,X,,,,,,,,,,,,,,,,,,,,,,0,llb,0,1200,6,0,2048,\n"
    "tensor,X,,,,,,,,,,,,,,,,,,,,,,1,pe,100,900,9,0,256,\n";

static void test_read_tiled(void **state)
{
    (void)state;
    char *dir = test_tmpdir(), *path = write_fixture(dir, tiled);
    stats_table t;
    sam_error err;
    assert_int_equal(stats_table_read(path, &t, &err), 0);
    assert_int_equal(t.cycles, 100);
    assert_int_equal(t.nblocks, 1);
    assert_int_equal(t.nmemories, 3);
    const stats_memory *dram = &t.memories[0], *llb = &t.memories[1], *pe = &t.memories[2];
    assert_string_equal(dram->id, "dram");
    assert_int_equal(dram->line, 4);
    assert_int_equal(dram->units, 1);
    assert_int_equal(dram->busy, 40);
    assert_int_equal(dram->bytes_read, 5000);
    assert_int_equal(dram->bytes_written, 1200);
    assert_false(dram->has_peak);
    assert_string_equal(llb->id, "llb");
    assert_true(llb->has_peak);
    assert_int_equal(llb->peak_bytes, 4096);
    assert_true(llb->has_capacity);
    assert_int_equal(llb->capacity, 8192);
    assert_false(dram->has_capacity);
    assert_string_equal(pe->id, "pe");
    assert_int_equal(pe->line, 6);
    assert_int_equal(pe->units, 2);
    assert_int_equal(pe->busy, 30);
    assert_int_equal(pe->bytes_read, 0);
    assert_int_equal(pe->peak_bytes, 1852);
    assert_int_equal(t.nlevels, 4);
    const stats_tensor_level *b1 = &t.levels[1], *x0 = &t.levels[2];
    assert_string_equal(b1->tensor, "B");
    assert_int_equal(b1->line, 8);
    assert_int_equal(b1->level, 1);
    assert_string_equal(b1->memory, "pe");
    assert_int_equal(b1->bytes_read, 1500);
    assert_int_equal(b1->bytes_written, 0);
    assert_int_equal(b1->tiles_fetched, 12);
    assert_int_equal(b1->tiles_skipped, 3);
    assert_int_equal(b1->peak_bytes, 512);
    assert_string_equal(x0->tensor, "X");
    assert_int_equal(x0->level, 0);
    assert_string_equal(x0->memory, "llb");
    assert_int_equal(x0->bytes_read, 0);
    assert_int_equal(x0->bytes_written, 1200);
    assert_int_equal(x0->tiles_fetched, 6);
    assert_int_equal(x0->peak_bytes, 2048);
    assert_float_equal(stats_memory_utilisation(&t, dram), 0.4, 1e-12);
    assert_float_equal(stats_memory_utilisation(&t, llb), 0.25, 1e-12);
    assert_float_equal(stats_memory_utilisation(&t, pe), 0.15, 1e-12);
    /* A's busy cycles add up over the two PEs. */
    assert_float_equal(stats_block_utilisation(&t, &t.blocks[0]), 0.75, 1e-12);
    t.cycles = 0; /* a run without a last cycle: no share to divide by (exactly 0, as
                     assert_float_equal would take infinity for 0) */
    assert_true(stats_memory_utilisation(&t, pe) == 0.0);
    stats_table_free(&t);
    free(path);
    test_tmpdir_remove(dir);
}

/* Rows in any order: a tensor before the memory that holds it; and tensor
 * rows without memory rows, whose memories are then not checked. */
static void test_tiled_row_order(void **state)
{
    (void)state;
    static const char *const texts[] = {
        "row,id,type,impl,producer,readers,kind,tokens,data,stops,empty,done,repeat,"
        "repeat_stop,first_cycle,last_cycle,idle_between,idle_before,idle_after,busy,starved,"
        "blocked,peak_bytes,tiles_skipped,tiles_fetched,bytes_written,bytes_read,memory,level,"
        "units\n"
        "tensor,X,,,,,,,,,,,,,,,,,,,,,7,0,3,40,0,pe,0,\n"
        "memory,pe,,,,,,,,,,,,,,,,,,9,,,64,,,0,0,,,4\n"
        "run,,,,,,,0,,,,,,,0,9,,,,,,,,,,,,,,\n",
        "row,id,type,impl,producer,readers,kind,tokens,data,stops,empty,done,repeat,"
        "repeat_stop,first_cycle,last_cycle,idle_between,idle_before,idle_after,busy,starved,"
        "blocked,level,memory,bytes_read,bytes_written,tiles_fetched,tiles_skipped,peak_bytes\n"
        "run,,,,,,,0,,,,,,,0,9,,,,,,,,,,,,,\n"
        "tensor,X,,,,,,,,,,,,,,,,,,,,,0,llb,0,40,3,0,7\n",
    };
    for (int i = 0; i < 2; i++) {
        char *dir = test_tmpdir(), *path = write_fixture(dir, texts[i]);
        stats_table t;
        sam_error err;
        assert_int_equal(stats_table_read(path, &t, &err), 0);
        assert_int_equal(t.nlevels, 1);
        assert_int_equal(t.nmemories, 1 - i);
        assert_int_equal(t.levels[0].line, 2 + i);
        assert_int_equal(t.levels[0].bytes_written, 40);
        assert_int_equal(t.levels[0].tiles_fetched, 3);
        assert_int_equal(t.levels[0].peak_bytes, 7);
        if (i == 0) {
            assert_int_equal(t.memories[0].units, 4);
            assert_int_equal(t.memories[0].peak_bytes, 64);
            assert_float_equal(stats_memory_utilisation(&t, &t.memories[0]), 9.0 / 40, 1e-12);
        }
        stats_table_free(&t);
        free(path);
        test_tmpdir_remove(dir);
    }
}

/* `samsim stats` adds the memories and the tensors' levels to its views. */
static void test_command_tiled(void **state)
{
    (void)state;
    char *dir = test_tmpdir(), *path = write_fixture(dir, tiled), *out = NULL;
    assert_int_equal(test_run_samsim(&out, NULL, "stats", path, NULL), 0);
    assert_non_null(strstr(out, "run: 100 cycles, 40 token moves\n"));
    const char *chain = strstr(out, "critical chain");
    const char *memories = strstr(out, "\nmemories (busy% = busy cycles / (units x run cycles); "
                                       "read = bytes out toward the PE, written = bytes in; "
                                       "peak% = peak / a buffer's capacity):\n"
                                       "  memory   units        busy   busy%          read       "
                                       "written          peak   peak%\n"
                                       "  dram         1          40   40.0%          5000"
                                       "          1200             -       -\n"
                                       "  llb          1          25   25.0%          3000"
                                       "          1200          4096   50.0%\n"
                                       "  pe           2          30   15.0%             0"
                                       "             0          1852   45.2%\n");
    const char *levels = strstr(out, "\ntensors by tiling level (0 outermost; read, written = "
                                     "bytes into, out of the memory; fetched = tiles moved; "
                                     "skipped = tiles never needed):\n"
                                     "  tensor  level  memory          read       written   "
                                     "fetched   skipped          peak\n"
                                     "  B           0  llb             2000             0         "
                                     "4         1          1024\n"
                                     "  B           1  pe              1500             0        "
                                     "12         3           512\n"
                                     "  X           0  llb                0          1200         "
                                     "6         0          2048\n"
                                     "  X           1  pe               100           900         "
                                     "9         0           256\n");
    assert_non_null(chain);
    assert_non_null(memories);
    assert_non_null(levels);
    assert_true(chain < memories && memories < levels);
    static const char last[] = "  X           1  pe               100           900         9  "
                               "       0           256\n";
    assert_string_equal(out + strlen(out) - strlen(last), last); /* the output ends there */
    free(out);
    free(path);
    test_tmpdir_remove(dir);
}

/* ---- malformed input ---------------------------------------------------- */

/* base with line `line` (1-based) replaced by text. */
static char *text_with(const char *base, int line, const char *text)
{
    size_t size = strlen(base) + strlen(text) + 2;
    char *s = malloc(size), *out = s;
    const char *p = base;
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

static char *fixture_with(int line, const char *text)
{
    return text_with(fixture, line, text);
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
    assert_null(t.memories);
    assert_null(t.levels);
    assert_int_equal(t.nstreams + t.nblocks + t.nmemories + t.nlevels, 0);
    free(path);
    test_tmpdir_remove(dir);
}

static void assert_line_refused(int line, const char *text, const char *want)
{
    char *s = fixture_with(line, text);
    assert_refused(s, want);
    free(s);
}

static void assert_tiled_line_refused(int line, const char *text, const char *want)
{
    char *s = text_with(tiled, line, text);
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
                        ":4: unknown row kind 'channel' (run, stream, block, lane, memory "
                        "or tensor)");
}

static void test_tiled_refused(void **state)
{
    (void)state;
    assert_tiled_line_refused(4, "memory,sram,,,,,,,,,,,,,,,,,,40,,,1,,,5000,1200,,,,",
                              ":4: column id: 'sram' is not dram, llb or pe");
    assert_tiled_line_refused(6, "memory,pe,,,,,,,,,,,,,,,,,,30,,,0,,,0,0,,,1852,",
                              ":6: column units: '0' is not a positive integer");
    assert_tiled_line_refused(5, "memory,dram,,,,,,,,,,,,,,,,,,25,,,1,,,3000,1200,,,,",
                              ":5: a second row for memory dram");
    assert_tiled_line_refused(10, "tensor,B,,,,,,,,,,,,,,,,,,,,,,00,pe,100,900,9,0,256,",
                              ":10: a second row for tensor B at level 0");
    assert_tiled_line_refused(7, "tensor,B,,,,,,,,,,,,,,,,,,,,,,0,llb,2k,0,4,1,1024,",
                              ":7: column bytes_read: '2k' is not a non-negative integer");
    assert_tiled_line_refused(5, "memory,llb,,,,,,,,,,,,,,,,,,25,,,1,,,3000,1200,,,4K,",
                              ":5: column peak_bytes: '4K' is not a non-negative integer");
    assert_tiled_line_refused(5, "memory,llb,,,,,,,,,,,,,,,,,,25,,,1,,,3000,1200,,,4096,8K",
                              ":5: column capacity_bytes: '8K' is not a non-negative integer");
    assert_tiled_line_refused(9, "tensor,X,,,,,,,,,,,,,,,,,,,,,,0,dram,0,1200,6,0,2048,",
                              ":9: column memory: 'dram' is not llb or pe");
    /* No LLB row, the LLB's tensors found wanting only at the end. */
    assert_tiled_line_refused(5,
                              "block,Z,fiberlookup,compressed,,,,0,,,,,,,,,0,100,0,0,0,0,,,,,,,,,",
                              ":7: column memory: 'llb' has no memory row");
}

/* A file from before tiled runs has none of their columns; a header may
 * lack only some, which the rows that need them name. */
static void test_tiled_missing_column(void **state)
{
    (void)state;
    assert_line_refused(15, ",memory,dram,,,,,,,,,,,,,,,,,,40,,",
                        ":15: a memory row needs column 'units', which the header lacks");
    assert_line_refused(15, ",tensor,B,,,,,,,,,,,,,,,,,,,,",
                        ":15: a tensor row needs column 'level', which the header lacks");
    static const char header[] =
        "row,id,type,impl,producer,readers,kind,tokens,data,stops,empty,done,repeat,repeat_stop,"
        "first_cycle,last_cycle,idle_between,idle_before,idle_after,busy,starved,blocked,units,"
        "level,memory,bytes_read,bytes_written,tiles_fetched,skipped,peak_bytes,capacity_bytes";
    assert_tiled_line_refused(1, header,
                              ":7: a tensor row needs column 'tiles_skipped', which the header "
                              "lacks");
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

/* A tiled run's file on two PEs reads back: DRAM first, without a peak,
 * the PE buffer counting both PEs, and `samsim stats` shows both views. */
static void test_real_tiled_run(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    char *graph = test_path(dir, "g.dot"), *b = test_path(dir, "B.mtx");
    char *c = test_path(dir, "C.mtx");
    char *hw = test_write_file(dir, "two.hw", "pe.count = 2\n");
    char *csv = test_path(dir, "s.csv"), *out = NULL, bind_b[4200], bind_c[4200];
    assert_int_equal(test_run_samsim(NULL, NULL, "compile", "X(i,j)=B(i,k)*C(k,j)", "-f=X:ss",
                                     "-f=B:ss", "-f=C:ss", "-o", graph, NULL),
                     0);
    assert_int_equal(test_run_samsim(NULL, NULL, "gen", "urandom", "--shape", "30x20",
                                     "--density", "0.2", "--seed", "4", "-o", b, NULL),
                     0);
    assert_int_equal(test_run_samsim(NULL, NULL, "gen", "urandom", "--shape", "20x25",
                                     "--density", "0.2", "--seed", "5", "-o", c, NULL),
                     0);
    snprintf(bind_b, sizeof bind_b, "B=%s", b);
    snprintf(bind_c, sizeof bind_c, "C=%s", c);
    assert_int_equal(test_run_samsim(NULL, NULL, "run", graph, "-t", bind_b, "-t", bind_c,
                                     "--expr", "X(i,j)=B(i,k)*C(k,j)", "--tile",
                                     "split(i,i1,i0,8)", "--hw", hw, "--stats", csv, NULL),
                     0);
    stats_table t;
    sam_error err;
    assert_int_equal(stats_table_read(csv, &t, &err), 0);
    assert_true(t.nmemories >= 2);
    const stats_memory *dram = &t.memories[0], *pe = &t.memories[t.nmemories - 1];
    assert_string_equal(dram->id, "dram");
    assert_int_equal(dram->units, 1);
    assert_false(dram->has_peak);
    assert_string_equal(pe->id, "pe");
    assert_int_equal(pe->units, 2);
    assert_true(pe->has_peak);
    double busy = stats_memory_utilisation(&t, pe);
    assert_true(busy > 0 && busy <= 1);
    assert_true(t.nlevels >= 3); /* B, C and X at each level */
    stats_table_free(&t);
    assert_int_equal(test_run_samsim(&out, NULL, "stats", csv, NULL), 0);
    assert_non_null(strstr(out, "\nmemories ("));
    assert_non_null(strstr(out, "\ntensors by tiling level ("));
    free(out), free(graph), free(b), free(c), free(hw), free(csv);
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
        cmocka_unit_test(test_read_tiled),     cmocka_unit_test(test_tiled_row_order),
        cmocka_unit_test(test_command_tiled),  cmocka_unit_test(test_tiled_refused),
        cmocka_unit_test(test_tiled_missing_column), cmocka_unit_test(test_real_tiled_run),
    };
    return cmocka_run_group_tests_name("stats_summary", tests, NULL, NULL);
}
