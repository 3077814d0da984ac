/* The outcome record (report/outcome.h) and the graph run that fills it
 * (run/graph_run.h): fields in order, each once, printed and written as
 * the summary and --outcome give them; a run through the library equals
 * the same run through `samsim run`, field by field. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../formats/tensor_file.h"
#include "../graph/graph.h"
#include "../report/outcome.h"
#include "../run/graph_run.h"
#include "test_util.h"

static void test_fields_in_order_each_once(void **state)
{
    (void)state;
    outcome o = {0};
    outcome_set(&o, "cycles", "%d", 12);
    outcome_set(&o, "check", "%s", "pass (exact)");
    outcome_set(&o, "result", "%s, %d nonzeros", "X", 5);
    sam_error err;
    assert_int_equal(outcome_done(&o, "g.gv", &err), 0);
    assert_string_equal(outcome_get(&o, "check"), "pass (exact)");
    assert_null(outcome_get(&o, "tokens"));
    assert_true(outcome_number(&o, "cycles") == 12);
    assert_true(isnan(outcome_number(&o, "check")));
    assert_true(isnan(outcome_number(&o, "tokens")));
    char *text;
    size_t len;
    FILE *f = open_memstream(&text, &len);
    outcome_print(&o, f);
    fclose(f);
    assert_string_equal(text, "cycles: 12\ncheck: pass (exact)\nresult: X, 5 nonzeros\n");
    free(text);
    char path[3000];
    memset(path, 'p', sizeof path - 1);
    path[sizeof path - 1] = '\0';
    outcome_set(&o, "written", "X written to %s", path);
    assert_int_equal(strlen(outcome_get(&o, "written")), strlen("X written to ") + 2999);
    outcome_set(&o, "check", "%s", "fail");
    assert_int_equal(outcome_done(&o, "g.gv", &err), -1);
    assert_string_equal(err.msg, "run: g.gv: the summary would give check twice (a tensor or "
                                 "phase named like another key)");
    outcome_free(&o);
}

/* Values with commas and quotes come back as they were written. */
static void test_file_round_trip(void **state)
{
    (void)state;
    char *dir = test_tmpdir(), *path = test_path(dir, "o.csv");
    outcome o = {0}, back;
    outcome_set(&o, "result", "%s", "Z, 12 nonzeros, \"not\" written");
    outcome_set(&o, "cycles", "%s", "7");
    sam_error err;
    assert_int_equal(outcome_write(&o, path, &err), 0);
    char *text = test_read_file(path);
    assert_string_equal(text, "result,\"Z, 12 nonzeros, \"\"not\"\" written\"\ncycles,7\n");
    assert_int_equal(outcome_read(path, &back, &err), 0);
    assert_int_equal(back.fields.n, o.fields.n);
    for (size_t i = 0; i < o.fields.n; i++)
        assert_string_equal(back.fields.v[i], o.fields.v[i]);
    outcome_free(&back);
    free(text);
    char *bad = test_write_file(dir, "bad.csv", "cycles,7\nresult,a,b\n");
    assert_int_equal(outcome_read(bad, &back, &err), -1);
    assert_non_null(strstr(err.msg, "bad.csv:2: a record's row holds a key and a value, not 3"));
    char *twice = test_write_file(dir, "twice.csv", "cycles,7\ncycles,8\n");
    assert_int_equal(outcome_read(twice, &back, &err), -1);
    assert_non_null(strstr(err.msg, "would give cycles twice"));
    outcome_free(&o);
    free(path), free(bad), free(twice);
    test_tmpdir_remove(dir);
}

/* mat_identity as Custard emits it, and SAM-BLOCKS.md 7.1's 4 x 4
 * example, which takes 12 cycles. */
static const char identity_gv[] =
    "digraph SAM {\n comment=\"X=ss01,B=ss01\"\n expr=\"X(i,j)=B(i,j)\"\n"
    " 5 [type=fiberlookup index=i tensor=B mode=0 format=compressed src=true root=true]\n"
    " 2 [type=fiberwrite index=i tensor=X mode=0 format=compressed sink=true]\n"
    " 4 [type=fiberlookup index=j tensor=B mode=1 format=compressed src=true root=false]\n"
    " 1 [type=fiberwrite index=j tensor=X mode=1 format=compressed sink=true]\n"
    " 3 [type=arrayvals tensor=B]\n"
    " 0 [type=fiberwrite mode=vals tensor=X sink=true]\n"
    " 5 -> 2 [label=crd type=crd]\n 5 -> 4 [label=ref type=ref]\n"
    " 4 -> 1 [label=crd type=crd]\n 4 -> 3 [label=ref type=ref]\n"
    " 3 -> 0 [label=val type=val]\n}\n";

static const char example_mtx[] = "%%MatrixMarket matrix coordinate real general\n"
                                  "4 4 5\n1 1 1\n1 3 2\n2 2 3\n4 1 4\n4 4 5\n";

/* The fields a run's wall clock decides. */
static int timed(const char *key)
{
    return !strcmp(key, "wall_seconds") || !strcmp(key, "tokens_per_second");
}

static void test_library_run_equals_command(void **state)
{
    (void)state;
    char *dir = test_tmpdir(), *gv = test_write_file(dir, "id.gv", identity_gv);
    char *b = test_write_file(dir, "B.mtx", example_mtx), *rec = test_path(dir, "rec.csv");
    sam_graph g;
    sam_error err;
    assert_int_equal(graph_read_dot(gv, &g, &err), 0);
    graph_run_request r = {.bind_name = {"B"}, .bind_value = {b}, .nbind = 1, .check = 1,
                           .max_cycles = UINT64_MAX};
    graph_run run;
    assert_int_equal(graph_run_do(&g, &r, &run, &err), 0);
    assert_int_equal(run.status, 0);
    assert_int_equal(run.cycles, 12);
    assert_true(outcome_number(&run.record, "cycles") == 12);
    assert_string_equal(outcome_get(&run.record, "check"), "pass (exact)");
    tensor want;
    tensor_file f = {.path = b};
    assert_int_equal(tensor_file_read(&f, &want, &err), 0);
    assert_true(tensor_equal(&run.result, &want));
    char bind[4200];
    snprintf(bind, sizeof bind, "B=%s", b);
    assert_int_equal(test_run_samsim(NULL, NULL, "run", gv, "-t", bind, "--check", "--outcome",
                                     rec, NULL),
                     0);
    outcome cli;
    assert_int_equal(outcome_read(rec, &cli, &err), 0);
    /* The command adds where the result went. */
    assert_int_equal(cli.fields.n, run.record.fields.n + 2);
    assert_string_equal(outcome_get(&cli, "result"), "X, 5 nonzeros, not written (-o FILE "
                                                     "writes it)");
    for (size_t i = 0; i < run.record.fields.n; i += 2) {
        assert_string_equal(cli.fields.v[i], run.record.fields.v[i]);
        if (!timed(cli.fields.v[i]))
            assert_string_equal(cli.fields.v[i + 1], run.record.fields.v[i + 1]);
    }
    outcome_free(&cli);
    tensor_free(&want);
    graph_run_free(&run);
    graph_free(&g);
    free(gv), free(b), free(rec);
    test_tmpdir_remove(dir);
}

/* A run stopped by max_cycles: no record, the statistics so far kept. */
static void test_library_run_stopped(void **state)
{
    (void)state;
    char *dir = test_tmpdir(), *gv = test_write_file(dir, "id.gv", identity_gv);
    char *b = test_write_file(dir, "B.mtx", example_mtx);
    sam_graph g;
    sam_error err;
    assert_int_equal(graph_read_dot(gv, &g, &err), 0);
    graph_run_request r = {.bind_name = {"B"}, .bind_value = {b}, .nbind = 1, .stats = 1,
                           .max_cycles = 8};
    graph_run run;
    assert_int_equal(graph_run_do(&g, &r, &run, &err), 0);
    assert_int_equal(run.status, 2);
    assert_string_equal(run.incomplete, "stopped");
    assert_int_equal(run.cycles, 8);
    assert_non_null(strstr(run.report, "stopped after 8 cycles"));
    assert_non_null(run.stats);
    assert_int_equal(run.record.fields.n, 0);
    graph_run_free(&run);
    r.max_cycles = UINT64_MAX;
    r.bind_name[0] = "Q";
    assert_int_equal(graph_run_do(&g, &r, &run, &err), -1);
    assert_non_null(strstr(err.msg, "-t Q: the graph has no operand Q (its operands: B)"));
    r.nbind = 0;
    assert_int_equal(graph_run_do(&g, &r, &run, &err), -1);
    assert_non_null(strstr(err.msg, "tensor B is not bound to data"));
    graph_run_free(&run);
    graph_free(&g);
    free(gv), free(b);
    test_tmpdir_remove(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fields_in_order_each_once),
        cmocka_unit_test(test_file_round_trip),
        cmocka_unit_test(test_library_run_equals_command),
        cmocka_unit_test(test_library_run_stopped),
    };
    return cmocka_run_group_tests_name("outcome", tests, NULL, NULL);
}
