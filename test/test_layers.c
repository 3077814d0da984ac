/* The layering check (scripts/check-layers): the source tree passes it; a
 * tree with an include from a room above fails it, naming the file, the
 * line and the room; includes downward and within a room pass. So does a
 * file outside engine/channel.[ch] that names a channel's sealed part. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "test_util.h"

/* Runs the check on root: its exit status, its messages in *out. */
static int check_layers(const char *root, char **out)
{
    char cmd[4200], buf[4096];
    snprintf(cmd, sizeof cmd, "scripts/check-layers '%s' 2>&1", root);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t n = fread(buf, 1, sizeof buf - 1, p);
    buf[n] = '\0';
    *out = strdup(buf);
    int status = pclose(p);
    assert_true(WIFEXITED(status));
    return WEXITSTATUS(status);
}

static void room_file(const char *root, const char *room, const char *name, const char *text)
{
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/%s", root, room);
    mkdir(dir, 0700);
    free(test_write_file(dir, name, text));
}

static void test_source_tree_passes(void **state)
{
    (void)state;
    char *out;
    int rc = check_layers(".", &out);
    if (rc)
        fail_msg("the source tree breaks the layering:\n%s", out);
    free(out);
}

static void test_upward_include_fails(void **state)
{
    (void)state;
    char *root = test_tmpdir(), *out;
    room_file(root, "common", "low.h", "#include <stdio.h>\n#include \"other.h\"\n");
    room_file(root, "engine", "mid.c", "#include \"mid.h\"\n#include \"../common/low.h\"\n");
    room_file(root, "cli", "top.c", "#include \"../engine/mid.h\"\n");
    assert_int_equal(check_layers(root, &out), 0);
    free(out);
    room_file(root, "engine", "mid.h", "#ifndef MID_H\n#define MID_H\n#include \"../run/x.h\"\n"
                                       "#endif\n");
    assert_int_equal(check_layers(root, &out), 1);
    assert_string_equal(out, "engine/mid.h:3: includes from run/, a room above engine/\n");
    free(out);
    room_file(root, "engine", "mid.h", "#include \"../sim/old.h\"\n");
    assert_int_equal(check_layers(root, &out), 1);
    assert_string_equal(out, "engine/mid.h:1: includes from sim/, no room of the layering\n");
    free(out);
    test_tmpdir_remove(root);
}

static void test_reach_into_channel_fails(void **state)
{
    (void)state;
    char *root = test_tmpdir(), *out;
    room_file(root, "engine", "channel.h", "struct { int tail; } sealed;\n");
    room_file(root, "engine", "channel.c", "int f(channel *c) { return c->sealed.tail; }\n");
    room_file(root, "blocks", "scan.c", "int g(channel *c) { return channel_pushes(c); }\n");
    assert_int_equal(check_layers(root, &out), 0);
    free(out);
    room_file(root, "blocks", "scan.c", "\nint g(channel *c) { return c->sealed.tail; }\n");
    assert_int_equal(check_layers(root, &out), 1);
    assert_string_equal(out, "blocks/scan.c:2: reaches into a channel's sealed part\n");
    free(out);
    test_tmpdir_remove(root);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_source_tree_passes),
        cmocka_unit_test(test_upward_include_fails),
        cmocka_unit_test(test_reach_into_channel_fails),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
