/* Parameters declared as data (common/param.h): one reader, one range
 * check and one listing for block attributes, hardware keys and template
 * parameters. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../blocks/registry.h"
#include "../common/param.h"
#include "../hwmodel/hw.h"
#include "../templates/template.h"
#include "test_util.h"

static const param sample[] = {
    {"width", "bits", "bits per word", 64, 1, 64, 1, 0},
    {"clock.ghz", "GHz", "the clock", 1, 1e-3, 1e3, 0, 0},
    {NULL, NULL, NULL, 0, 0, 0, 0, 0},
};

static void test_find_and_parse(void **state)
{
    (void)state;
    assert_ptr_equal(param_find(sample, "clock.ghz", 9), &sample[1]);
    assert_ptr_equal(param_find(sample, "widthx", 5), &sample[0]);
    assert_null(param_find(sample, "wid", 3));
    assert_null(param_find(NULL, "width", 5));
    double v;
    char why[128];
    assert_int_equal(param_parse(&sample[0], "32", &v, why, sizeof why), 0);
    assert_true(v == 32);
    assert_int_equal(param_parse(&sample[1], "0.5", &v, why, sizeof why), 0);
    assert_true(v == 0.5);
    static const struct {
        int p;
        const char *text, *why;
    } refused[] = {
        {0, "65", "width = 65 is not a whole number 1..64 (bits)"},
        {0, "2.5", "width = 2.5 is not a whole number 1..64 (bits)"},
        {0, "0x10", "width = 0x10 is not a whole number 1..64 (bits)"},
        {0, "", "width =  is not a whole number 1..64 (bits)"},
        {1, "inf", "clock.ghz = inf is not a number 0.001..1000 (GHz)"},
        {1, "0", "clock.ghz = 0 is not a number 0.001..1000 (GHz)"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        assert_int_equal(param_parse(&sample[refused[i].p], refused[i].text, &v, why, sizeof why),
                         -1);
        assert_string_equal(why, refused[i].why);
    }
}

static void test_listing(void **state)
{
    (void)state;
    char *text;
    size_t len;
    FILE *f = open_memstream(&text, &len);
    param_print_list(f, sample, 2);
    fclose(f);
    assert_string_equal(text, "  width           bits; default 64, a whole number 1 to 64\n"
                              "                  bits per word\n"
                              "  clock.ghz       GHz; default 1, 0.001 to 1000\n"
                              "                  the clock\n");
    free(text);
}

/* Every declaration a reader relies on: a name, a unit, a meaning and a
 * default within a non-empty range, once per list. */
static void check_list(const char *what, const param *list)
{
    for (const param *p = list; p && p->name; p++) {
        if (!*p->name || !p->unit || !p->about || !*p->about || p->min > p->max ||
            !param_accepts(p, p->def))
            fail_msg("%s: %s is not declared whole", what, p->name);
        if (param_find(list, p->name, strlen(p->name)) != p)
            fail_msg("%s: %s is declared twice", what, p->name);
    }
}

static void test_every_declaration_sound(void **state)
{
    (void)state;
    check_list("hw", hw_params);
    for (int i = 0; templates[i]; i++)
        check_list(templates[i]->name, templates[i]->params);
    for (int i = 0; i < registry_count(); i++)
        check_list(registry_at(i)->impl, registry_at(i)->params);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_find_and_parse),
        cmocka_unit_test(test_listing),
        cmocka_unit_test(test_every_declaration_sound),
    };
    return cmocka_run_group_tests_name("param", tests, NULL, NULL);
}
