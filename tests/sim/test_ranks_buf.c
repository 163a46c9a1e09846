/*
 * A partitioned run's results travel between ranks a window at a time
 * (sim/ranks_buf.h, bn_ranks_gather_stream): a pack run again with a window
 * keeps only the window's bytes, and a cursor that brings the windows as it
 * reads gives back exactly what one buffer would, records straddling the
 * windows' edges included.
 */
#include "support.h"

#include "sim/ranks_buf.h"

enum { RECORDS = 300 };

/* Records of uneven lengths (1 to 97 bytes), each byte from its place. */
static void pack(struct bn_rbuf *b)
{
    unsigned char rec[128];
    size_t at = 0;
    for (int i = 0; i < RECORDS; i++) {
        size_t len = 1 + (size_t)(i * 37) % 97;
        for (size_t k = 0; k < len; k++)
            rec[k] = (unsigned char)((at + k) * 131 + 7);
        bn_rbuf_put(b, rec, len);
        at += len;
    }
}

struct feed {
    char room[256];
    uint32_t cap;
    size_t at, len;
    int pieces;
};

static bool more(void *ud, struct bn_rcur *c)
{
    struct feed *f = ud;
    if (f->at >= f->len)
        return false;
    struct bn_rbuf w;
    bn_rbuf_window(&w, f->room, f->cap, f->at);
    pack(&w);
    size_t got = f->len - f->at < f->cap ? f->len - f->at : f->cap;
    assert_int_equal(w.n, got);
    f->at += got;
    f->pieces++;
    c->p = f->room;
    c->len = got;
    c->rest = f->len - f->at;
    return true;
}

static void test_windows_read_back_whole(void **state)
{
    (void)state;
    struct bn_rbuf whole = {0}, sz = {.sizing = true};
    pack(&whole);
    pack(&sz);
    assert_false(whole.oom);
    assert_int_equal(sz.need, whole.n);
    uint32_t caps[] = {1, 5, 64, 200, 256};
    for (size_t i = 0; i < sizeof caps / sizeof caps[0]; i++) {
        struct feed f = {.cap = caps[i], .len = sz.need};
        struct bn_rcur c = {.rest = f.len, .more = more, .ud = &f};
        char got[128];
        size_t at = 0;
        for (int r = 0; r < RECORDS; r++) {
            size_t len = 1 + (size_t)(r * 37) % 97;
            if (r % 3 == 2) { /* skipped, as unpack skips what it does not need */
                assert_true(bn_rcur_get(&c, NULL, len));
            } else {
                assert_true(bn_rcur_get(&c, got, len));
                assert_memory_equal(got, whole.p + at, len);
            }
            at += len;
        }
        assert_true(bn_rcur_end(&c));
        assert_false(bn_rcur_get(&c, got, 1)); /* nothing past the end */
        assert_int_equal(f.pieces, (int)((sz.need + caps[i] - 1) / caps[i]));
    }
    free(whole.p);
}

/* A cursor over one buffer is the old one: no pieces to come. */
static void test_plain_cursor(void **state)
{
    (void)state;
    const char buf[] = "abcdef";
    struct bn_rcur c = {.p = buf, .len = 6};
    char x[4];
    assert_true(bn_rcur_get(&c, x, 4));
    assert_memory_equal(x, "abcd", 4);
    assert_false(bn_rcur_end(&c));
    assert_false(bn_rcur_get(&c, x, 3));
    assert_true(bn_rcur_get(&c, NULL, 2));
    assert_true(bn_rcur_end(&c));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_windows_read_back_whole),
        cmocka_unit_test(test_plain_cursor),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
