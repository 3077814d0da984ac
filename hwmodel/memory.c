#include "memory.h"

#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

int mem_init(mem_model *m, const hw_desc *hw, int ntensors, int nlevels, sam_error *err)
{
    memset(m, 0, sizeof *m);
    hash_table_init(&m->touched, sizeof(mem_touch));
    m->hw = *hw;
    m->ntensors = ntensors;
    m->nlevels = nlevels;
    m->npe = (int)hw->pe_count;
    for (int t = 0; t <= MEM_MAX_TENSORS; t++)
        m->llb_holds[t] = 1;
    fcache_init(&m->units);
    int buffers = hw->mem[HW_LLB].capacity > 0 ? 2 : 1;
    if (ntensors > MEM_MAX_TENSORS)
        return error_set(err, "more than %d operands for the memory model", MEM_MAX_TENSORS);
    if (nlevels < 1 || nlevels > buffers)
        return error_set(err, "a tiling of %d levels needs as many buffers; the hardware has %d "
                              "(llb.capacity = 0 leaves only the PE buffer)", nlevels, buffers);
    m->at[nlevels - 1] = HW_PE;
    if (nlevels == 2)
        m->at[0] = HW_LLB;
    for (int k = 0; k < HW_MEMORIES; k++)
        link_init(&m->link[k], hw->mem[k].interleave > 0);
    m->ports = calloc((size_t)m->npe, sizeof *m->ports);
    if (!m->ports)
        return error_set(err, "out of memory");
    for (int l = 0; l < nlevels; l++) {
        int n = l == nlevels - 1 ? m->npe : 1;
        m->buffers[l] = calloc((size_t)n, sizeof *m->buffers[l]);
        if (!m->buffers[l])
            return error_set(err, "out of memory");
        for (int b = 0; b < n; b++)
            m->buffers[l][b].out_id = -1;
    }
    if (hw->pe_merge > 0) {
        if (!(m->merger = calloc(1, sizeof *m->merger)))
            return error_set(err, "out of memory");
        m->merger->out_id = -1;
    }
    return 0;
}

/* The buffers of level l, one or one per PE. */
static int buffer_count(const mem_model *m, int l)
{
    return l == m->nlevels - 1 ? m->npe : 1;
}

void mem_free(mem_model *m)
{
    for (int k = 0; k < HW_MEMORIES; k++)
        link_free(&m->link[k]);
    for (int pe = 0; m->ports && pe < m->npe; pe++)
        if (m->ports[pe]) {
            link_free(&m->ports[pe][0]);
            link_free(&m->ports[pe][1]);
            free(m->ports[pe]);
        }
    free(m->ports);
    m->ports = NULL;
    free(m->merger);
    m->merger = NULL;
    hash_table_free(&m->touched);
    free(m->stay_written);
    m->stay_written = NULL;
    fcache_free(&m->units);
    for (int l = 0; l < MEM_MAX_LEVELS; l++) {
        for (int b = 0; m->buffers[l] && b < buffer_count(m, l); b++)
            free(m->buffers[l][b].slot);
        free(m->buffers[l]);
        m->buffers[l] = NULL;
        for (int t = 0; t < MEM_MAX_TENSORS; t++) {
            free(m->needed[t][l]);
            m->needed[t][l] = NULL;
        }
    }
}

int mem_declare_tiles(mem_model *m, int t, int l, size_t ntiles, sam_error *err)
{
    free(m->needed[t][l]);
    m->ntiles[t][l] = ntiles;
    m->needed[t][l] = calloc(ntiles + 1, 1);
    return m->needed[t][l] ? 0 : error_set(err, "out of memory");
}

hw_memory_id mem_level_buffer(const mem_model *m, int l)
{
    return m->at[l];
}

void mem_bypass_llb(mem_model *m, int t)
{
    m->llb_holds[t] = 0;
}

int mem_cache_fibers(mem_model *m, int t, sam_error *err)
{
    if (m->hw.mem[HW_LLB].capacity <= 0)
        return error_set(err, "a cache of fibers needs an LLB (llb.capacity > 0)");
    m->cached[t] = 1;
    m->any_cached = 1;
    return 0;
}

void mem_touch_fibers(mem_model *m, int t, const mem_fiber *f, size_t n)
{
    m->fibers[t] = f;
    m->nfibers[t] = n;
}

int mem_llb_holds_level(const mem_model *m)
{
    for (int l = 0; l < m->nlevels; l++)
        if (m->at[l] == HW_LLB)
            return 1;
    return 0;
}

int mem_tensor_held(const mem_model *m, int t, int l)
{
    if (t < m->ntensors && m->cached[t])
        return 0;
    return m->at[l] != HW_LLB || m->llb_holds[t];
}

/* Level l's buffer that serves processing element pe. */
static mem_buffer *buffer_of(const mem_model *m, int l, int pe)
{
    return &m->buffers[l][l == m->nlevels - 1 ? pe : 0];
}

/* The buffer holding the result's tile of level l that a point on
 * processing element pe adds to: with pe.merge, the PE level's is the
 * merger beside the PE buffers, one for all of them. */
static mem_buffer *result_buffer(const mem_model *m, int l, int pe)
{
    return m->merger && l == m->nlevels - 1 ? m->merger : buffer_of(m, l, pe);
}

/* The PE whose link a result tile of buffer b leaves by: the merger's
 * goes by the PE that last added to it. */
static int result_pe(const mem_model *m, const mem_buffer *b, int pe)
{
    return b == m->merger ? m->merger_pe : pe;
}

static int buffering(const mem_model *m, int l)
{
    return (int)m->hw.mem[m->at[l]].buffering;
}

/* Operand t's k-th slot in buffer b of level l. */
static mem_slot *slot_of(const mem_model *m, int l, const mem_buffer *b, int t, int k)
{
    return &b->slot[t * buffering(m, l) + k];
}

/* Whether level l's buffer keeps its slots' tiles for any later point
 * (llb.reuse, pe.reuse), not only the next. */
static int keeps(const mem_model *m, int l)
{
    return m->hw.mem[m->at[l]].reuse > 0;
}

/* Operand t's slot that the latest point in buffer b of level l used. */
static mem_slot *current_slot(const mem_model *m, int l, const mem_buffer *b, int t)
{
    return slot_of(m, l, b, t, b->cur[t]);
}

/* The slot of operand t's tile id in buffer b of level l that a point
 * uses without a fetch: the latest point's, or with reuse any; -1. */
static int slot_holding(const mem_model *m, int l, const mem_buffer *b, int t, int64_t id)
{
    if (current_slot(m, l, b, t)->id == id)
        return b->cur[t];
    for (int k = 0; keeps(m, l) && k < buffering(m, l); k++)
        if (slot_of(m, l, b, t, k)->id == id)
            return k;
    return -1;
}

/* Operand t's least recently used slot in buffer b of level l (an empty
 * one first, the lowest numbered of equals): the one a fetch replaces.
 * Without reuse it is the slot of the tile fetched `buffering` ago. */
static int slot_to_replace(const mem_model *m, int l, const mem_buffer *b, int t)
{
    int lru = 0;
    for (int k = 1; k < buffering(m, l); k++)
        if (slot_of(m, l, b, t, k)->used < slot_of(m, l, b, t, lru)->used)
            lru = k;
    return lru;
}

/* Slot k of operand t in buffer b of level l is the point's: held until
 * the point is computed (mem_point), the most recently used. */
static mem_slot *use_slot(mem_model *m, int l, mem_buffer *b, int t, int k)
{
    mem_slot *s = slot_of(m, l, b, t, k);
    b->cur[t] = k;
    s->used = ++m->uses;
    s->release = INFINITY;
    return s;
}

/* Processing element pe's buffers and port, allocated when a point first
 * goes to it: pe.count may be large and a run use few of them. */
static int open_pe(mem_model *m, int pe, sam_error *err)
{
    for (int l = 0; l < m->nlevels; l++) {
        mem_buffer *b = buffer_of(m, l, pe);
        size_t n = (size_t)(m->ntensors ? m->ntensors : 1) * (size_t)buffering(m, l);
        if (b->slot)
            continue;
        if (!(b->slot = malloc(n * sizeof *b->slot)))
            return error_set(err, "out of memory");
        for (size_t k = 0; k < n; k++)
            b->slot[k] = (mem_slot){-1, 0, 0, 0, -1, 0, 0};
    }
    if ((m->nlevels == 2 || m->any_cached) && !m->ports[pe]) {
        if (!(m->ports[pe] = calloc(2, sizeof *m->ports[pe])))
            return error_set(err, "out of memory");
        for (int way = 0; way < 2; way++)
            link_init(&m->ports[pe][way], m->hw.mem[HW_LLB].interleave > 0);
    }
    return 0;
}

/* Where level l's tiles come from: the buffer of the level above, or
 * DRAM (through the LLB, when it holds no level). */
hw_memory_id mem_level_source(const mem_model *m, int l)
{
    return l ? m->at[l - 1] : HW_DRAM;
}

hw_memory_id mem_tensor_source(const mem_model *m, int t, int l)
{
    return l && !mem_tensor_held(m, t, l - 1) ? HW_DRAM : mem_level_source(m, l);
}

/* The LLB's bandwidth toward the PEs, or from them (write) where
 * llb.write.bandwidth gives that way a link of its own. */
static double llb_bandwidth(const mem_model *m, int write)
{
    return write && m->hw.llb_write_bandwidth > 0 ? m->hw.llb_write_bandwidth
                                                  : m->hw.mem[HW_LLB].bandwidth;
}

/* Bytes a cycle between src and the buffer of level l, the way write
 * says: a pass through the LLB goes at the slower of its two links. */
static double bytes_per_cycle(const mem_model *m, hw_memory_id src, int l, int write)
{
    double bw = src == HW_LLB ? llb_bandwidth(m, write) : m->hw.mem[src].bandwidth;
    if (src == HW_DRAM && m->at[l] == HW_PE && m->hw.mem[HW_LLB].capacity > 0 &&
        llb_bandwidth(m, write) < bw)
        bw = llb_bandwidth(m, write);
    return bw / m->hw.clock_ghz;
}

static double latency_of(const mem_model *m, hw_memory_id src, int l)
{
    double lat = m->hw.mem[src].latency;
    if (src == HW_DRAM && m->at[l] == HW_PE && m->hw.mem[HW_LLB].capacity > 0)
        lat += m->hw.mem[HW_LLB].latency;
    return lat;
}

/* The link from src toward processing element pe, or back (write): the
 * LLB has a port to each PE's buffer, and with llb.write.bandwidth one
 * back from it; DRAM one link for all. */
static mem_link *link_of(mem_model *m, hw_memory_id src, int pe, int write)
{
    return src == HW_LLB ? &m->ports[pe][write && m->hw.llb_write_bandwidth > 0]
                         : &m->link[src];
}

/* Bytes moved for bytes of data: whole lines of the source. */
static double rounded(const mem_model *m, hw_memory_id src, double bytes)
{
    double line = m->hw.mem[src].line;
    return ceil(bytes / line) * line;
}

/* Bytes of operand t's tiles buffer b of level l holds at cycle `at`:
 * those whose points are not all computed, or with reuse all it keeps. */
static double held_of(const mem_model *m, int l, const mem_buffer *b, int t, double at)
{
    double bytes = 0;
    for (int k = 0; k < buffering(m, l); k++) {
        const mem_slot *s = slot_of(m, l, b, t, k);
        if (s->id >= 0 && (keeps(m, l) || s->release > at))
            bytes += s->bytes;
    }
    return bytes;
}

/* Bytes of operand tiles buffer b of level l holds at cycle t: those
 * not yet released, and in the LLB its units. */
static double operands_held(const mem_model *m, int l, const mem_buffer *b, double t)
{
    double bytes = m->at[l] == HW_LLB ? m->units.bytes : 0;
    for (int i = 0; i < m->ntensors; i++)
        bytes += held_of(m, l, b, i, t);
    return bytes;
}

/* Whether a result tile back in the LLB moves by the PE tiles points
 * touch (llb.partials), rather than whole. */
static int partials_by_pe(const mem_model *m)
{
    return m->hw.llb_partials > 0 && m->nlevels == 2 && mem_tensor_held(m, m->ntensors, 0);
}

/* The bytes the LLB's result tile writes out: what its stay touched, or
 * all of it, but for its PE tiles sent on (llb.eager). */
static double llb_out_bytes(const mem_model *m, const mem_buffer *b)
{
    return fmax(0, (partials_by_pe(m) ? b->dirty : b->out_bytes) - b->sent);
}

/* Whether final PE tiles of the result go on from the LLB at once. */
static int eager(const mem_model *m)
{
    return m->hw.llb_eager > 0 && m->nlevels == 2 && mem_tensor_held(m, m->ntensors, 0);
}

/* Bytes of the result's tile buffer b of level l holds (with
 * llb.partials, the LLB holds what its stay touched). */
static double result_held(const mem_model *m, int l, const mem_buffer *b)
{
    if (b->out_id < 0)
        return 0;
    return l ? b->out_bytes : llb_out_bytes(m, b);
}

/* Bytes buffer b of level l holds at cycle t: operand tiles not yet
 * released, and the result's tile. */
static double held(const mem_model *m, int l, const mem_buffer *b, double t)
{
    return operands_held(m, l, b, t) + result_held(m, l, b);
}

/* The first release after t in buffer b of level l, or INFINITY. */
static double next_release(const mem_model *m, int l, const mem_buffer *b, double t)
{
    double next = INFINITY;
    for (int i = 0; i < m->ntensors; i++)
        for (int k = 0; k < buffering(m, l); k++) {
            const mem_slot *s = slot_of(m, l, b, i, k);
            if (s->id >= 0 && s->release > t && s->release < next)
                next = s->release;
        }
    return next;
}

/* In level l's buffer, when it is the LLB: takes its least recently used
 * unit out, no sooner than the unit's last reader has it (*t moves on to
 * then). 0 when there is none. */
static int evict_unit(mem_model *m, int l, double *t)
{
    const fcache_unit *u = fcache_oldest(&m->units);
    if (m->at[l] != HW_LLB || !u)
        return 0;
    *t = fmax(*t, u->release);
    fcache_evict_oldest(&m->units);
    return 1;
}

/* With reuse, in buffer b of level l: takes its least recently used
 * operand tile out (not one the point being placed holds), no sooner than
 * its last point is computed (*t moves on to then, and the slot is free
 * from then). 0 when there is none. */
static int evict_kept(const mem_model *m, int l, const mem_buffer *b, double *t)
{
    mem_slot *lru = NULL;
    for (int i = 0; keeps(m, l) && i < m->ntensors; i++)
        for (int k = 0; k < buffering(m, l); k++) {
            mem_slot *s = slot_of(m, l, b, i, k);
            if (s->id >= 0 && s->bytes > 0 && !isinf(s->release) &&
                (!lru || s->used < lru->used))
                lru = s;
        }
    if (!lru)
        return 0;
    *t = fmax(*t, lru->release);
    *lru = (mem_slot){-1, 0, 0, *t, lru->units, lru->stay, 0};
    return 1;
}

/* A refusal of tensor t's tile of `bytes` at point v in buffer dst. */
/* A refusal by buffer dst ends with what the hardware says makes tiles
 * fit there (fit.MEMORY), when it says. */
static int fit_hint(const mem_model *m, hw_memory_id dst, sam_error *err)
{
    size_t used = strlen(err->msg);
    if (m->hw.fit[dst][0])
        snprintf(err->msg + used, sizeof err->msg - used, "; %s", m->hw.fit[dst]);
    return -1;
}

static int refuse(const mem_model *m, const mem_visit *v, const char *const *names, int t,
                  double bytes, hw_memory_id dst, sam_error *err)
{
    char where[256];
    double cap = m->hw.mem[dst].capacity;
    v->where(v->where_ctx, where, sizeof where);
    if (bytes > cap)
        error_set(err, "tile %s of %s (%.0f bytes) does not fit in the %s buffer (%.0f bytes)",
                  where, names[t], bytes, hw_memory_names[dst], cap);
    else
        error_set(err, "tile %s of %s (%.0f bytes) does not fit in the %s buffer beside the "
                  "point's other tiles", where, names[t], bytes, hw_memory_names[dst]);
    return fit_hint(m, dst, err);
}

/* A result tile that a point's replaces in its buffer: its bytes, there
 * until the cycle its write-out has left. */
typedef struct mem_leaving {
    double bytes, gone;
} mem_leaving;

/* The first cycle from t on at which buffer b of level l has room for
 * `bytes` more beside the operand tiles it holds and the result tile
 * leaving it; INFINITY when none comes. What a buffer holds only shrinks
 * as time goes on, its tiles released, so a later cycle has room too. */
static double room_at(mem_model *m, int l, const mem_buffer *b, double bytes,
                      const mem_leaving *old, double t)
{
    double cap = m->hw.mem[m->at[l]].capacity;
    while (operands_held(m, l, b, t) + (t < old->gone ? old->bytes : 0) + bytes > cap) {
        if (evict_unit(m, l, &t) || evict_kept(m, l, b, &t))
            continue;
        double next = next_release(m, l, b, t);
        if (t < old->gone && old->gone < next)
            next = old->gone;
        if (isinf(next))
            return INFINITY;
        t = next;
    }
    return t;
}

/* Operand t's tile for level l in place: reused, or fetched after parent
 * (the cycle its parent tile is in place). Its ready cycle, or -1. */
static double fetch(mem_model *m, int l, const mem_visit *v, int t, mem_tile tile, double parent,
                    const char *const *names, sam_error *err)
{
    int pe = v->pe;
    mem_buffer *b = buffer_of(m, l, pe);
    int k = slot_holding(m, l, b, t, tile.id);
    if (k >= 0)
        return use_slot(m, l, b, t, k)->ready;
    hw_memory_id src = mem_tensor_source(m, t, l), dst = m->at[l];
    double cap = m->hw.mem[dst].capacity;
    if (tile.bytes > cap)
        return refuse(m, v, names, t, tile.bytes, dst, err);
    k = slot_to_replace(m, l, b, t);
    mem_slot *victim = slot_of(m, l, b, t, k);
    victim->id = -1;
    double start = fmax(victim->release, parent);
    while (held(m, l, b, start) + tile.bytes > cap) {
        if (evict_unit(m, l, &start) || evict_kept(m, l, b, &start))
            continue;
        start = next_release(m, l, b, start);
        if (isinf(start))
            return refuse(m, v, names, t, tile.bytes, dst, err);
    }
    double moved = rounded(m, src, tile.bytes), occupy = moved / bytes_per_cycle(m, src, l, 0);
    start = link_book(link_of(m, src, pe, 0), start, occupy);
    if (m->trace)
        hw_trace_transfer(m->trace, &(hw_transfer){src, dst, pe, 0, t, l, tile.id, -1, start,
                                                   occupy, moved});
    m->usage[src].busy += occupy;
    m->usage[dst].bytes_in += moved;
    m->usage[dst].peak = fmax(m->usage[dst].peak, held(m, l, b, start) + tile.bytes);
    mem_traffic *tr = &m->traffic[t];
    tr->peak[dst] = fmax(tr->peak[dst], held_of(m, l, b, t, start) + tile.bytes);
    tr->read[src] += moved;
    tr->fetched[dst]++;
    if (m->needed[t][l] && (size_t)tile.id < m->ntiles[t][l])
        m->needed[t][l][tile.id] = 1;
    *victim = (mem_slot){tile.id, tile.bytes, start + latency_of(m, src, l) + occupy, INFINITY,
                         -1, 0, 0};
    return use_slot(m, l, b, t, k)->ready;
}

/* Whether operand t's LLB tiles fill by the PE tiles points need. */
static int lazy(const mem_model *m, int t)
{
    return m->hw.llb_lazy > 0 && m->nlevels == 2 && mem_tensor_held(m, t, 0);
}

/* Whether processing element pe's buffer holds operand t's tile id for
 * the point, so that it reuses it. */
static int pe_reuses(const mem_model *m, int pe, int t, int64_t id)
{
    int l = m->nlevels - 1;
    return slot_holding(m, l, buffer_of(m, l, pe), t, id) >= 0;
}

/* With llb.lazy, the stay of operand t's LLB tile that the latest point
 * on processing element pe used: its PE tiles in the LLB are named by it. */
static int64_t lazy_stay_of(const mem_model *m, int pe, int t)
{
    return (int64_t)current_slot(m, 0, buffer_of(m, 0, pe), t)->stay;
}

/* With llb.lazy, operand t's LLB tile for the point: reused, or a new
 * stay in the next slot, which moves nothing (its PE tiles come as
 * points need them). The cycle it may start to fill. */
static double lazy_slot(mem_model *m, const mem_visit *v, int t, mem_tile tile, double parent)
{
    mem_buffer *b = buffer_of(m, 0, v->pe);
    int k = slot_holding(m, 0, b, t, tile.id);
    if (k >= 0)
        return use_slot(m, 0, b, t, k)->ready;
    k = slot_to_replace(m, 0, b, t);
    mem_slot *victim = slot_of(m, 0, b, t, k);
    double start = fmax(victim->release, parent);
    fcache_evict_group(&m->units, &victim->units);
    *victim = (mem_slot){tile.id, 0, start, INFINITY, -1, ++m->lazy_stay[t], 0};
    m->traffic[t].fetched[HW_LLB]++;
    if (m->needed[t][0] && (size_t)tile.id < m->ntiles[t][0])
        m->needed[t][0][tile.id] = 1;
    return use_slot(m, 0, b, t, k)->ready;
}

/* The cycle from t on at which the LLB has room for `bytes` more beside
 * what it holds, evicting units least recently used first; INFINITY when
 * none comes. */
static double llb_room(mem_model *m, double bytes, double t)
{
    double cap = m->hw.mem[HW_LLB].capacity;
    const mem_buffer *b = m->nlevels == 2 ? buffer_of(m, 0, 0) : NULL;
    while ((b ? held(m, 0, b, t) : m->units.bytes) + bytes > cap) {
        if (fcache_oldest(&m->units)) {
            t = fmax(t, fcache_oldest(&m->units)->release);
            fcache_evict_oldest(&m->units);
        } else if (!b || (!evict_kept(m, 0, b, &t) && isinf(t = next_release(m, 0, b, t)))) {
            return INFINITY;
        }
    }
    return t;
}

/* Moves a unit of operand t (`bytes`: the point's PE tile, or its fiber
 * when >= 0) from DRAM into the LLB, its link free from `after` on: the
 * cycle it is in. */
static double into_llb(mem_model *m, int t, double bytes, double after, int64_t fiber)
{
    const hw_memory *dram = &m->hw.mem[HW_DRAM];
    double moved = rounded(m, HW_DRAM, bytes), occupy = moved / (dram->bandwidth / m->hw.clock_ghz);
    double start = link_book(&m->link[HW_DRAM], after, occupy);
    if (m->trace)
        hw_trace_transfer(m->trace, &(hw_transfer){HW_DRAM, HW_LLB, 0, 0, t, m->nlevels - 1, -1,
                                                   fiber, start, occupy, moved});
    m->usage[HW_DRAM].busy += occupy;
    m->usage[HW_LLB].bytes_in += moved;
    m->traffic[t].read[HW_DRAM] += moved;
    return start + dram->latency + occupy;
}

/* Reads a unit of operand t (`bytes`, in the LLB from `after`: the
 * point's fiber) over processing element pe's port: the cycle the PE
 * has it. */
static double llb_to_pe(mem_model *m, int t, int pe, double bytes, double after, int64_t fiber)
{
    const hw_memory *llb = &m->hw.mem[HW_LLB];
    double moved = rounded(m, HW_LLB, bytes), occupy = moved / (llb->bandwidth / m->hw.clock_ghz);
    double start = link_book(m->ports[pe], after, occupy);
    if (m->trace)
        hw_trace_transfer(m->trace, &(hw_transfer){HW_LLB, HW_PE, pe, 0, t, m->nlevels - 1, -1,
                                                   fiber, start, occupy, moved});
    m->usage[HW_LLB].busy += occupy;
    m->usage[HW_PE].bytes_in += moved;
    m->traffic[t].read[HW_LLB] += moved;
    return start + llb->latency + occupy;
}

/* A unit of operand t of `bytes`, named (a, b), in group *group (NULL:
 * none), fetched into the LLB once it has room from `after` on: NULL when
 * it never does (err's message empty) or on an error. */
static fcache_unit *unit_in(mem_model *m, int t, int64_t a, int64_t b, double bytes, double after,
                            int64_t *group, sam_error *err)
{
    double start = llb_room(m, bytes, after);
    if (isinf(start))
        return NULL;
    double in = into_llb(m, t, bytes, start, group ? -1 : b);
    fcache_unit *u = fcache_add(&m->units, t, a, b, bytes, group, err);
    if (!u)
        return NULL;
    u->ready = u->release = in;
    const mem_buffer *llb = m->nlevels == 2 ? buffer_of(m, 0, 0) : NULL;
    m->usage[HW_LLB].peak = fmax(m->usage[HW_LLB].peak,
                                 llb ? held(m, 0, llb, start) : m->units.bytes);
    m->traffic[t].peak[HW_LLB] = fmax(m->traffic[t].peak[HW_LLB], m->units.tensor_bytes[t]);
    return u;
}

/* With llb.lazy, the point's PE tile of operand t into the LLB: there
 * since this stay fetched it, or fetched from DRAM once its LLB tile may
 * fill (`after`) and the LLB has room. The cycle it is in, or -1. */
static double lazy_fill(mem_model *m, const mem_visit *v, int t, mem_tile tile, double after,
                        const char *const *names, sam_error *err)
{
    int64_t stay = lazy_stay_of(m, v->pe, t);
    fcache_unit *u = fcache_find(&m->units, t, stay, tile.id);
    if (u) {
        fcache_use(&m->units, u);
        return u->ready;
    }
    mem_slot *slot = current_slot(m, 0, buffer_of(m, 0, v->pe), t);
    err->msg[0] = '\0';
    if (tile.bytes > m->hw.mem[HW_LLB].capacity ||
        !(u = unit_in(m, t, stay, tile.id, tile.bytes, after, &slot->units, err)))
        return err->msg[0] ? -1 : refuse(m, v, names, t, tile.bytes, HW_LLB, err);
    return u->ready;
}

/* Operand t's tile for level l in place, its parent in place at `parent`:
 * with llb.lazy, the LLB tile's slot, and the PE tile through the LLB.
 * Its ready cycle, or -1. */
static double tile_in_place(mem_model *m, int l, const mem_visit *v, int t, mem_tile tile,
                            double parent, const char *const *names, sam_error *err)
{
    if (!lazy(m, t))
        return fetch(m, l, v, t, tile, parent, names, err);
    if (l == 0)
        return lazy_slot(m, v, t, tile, parent);
    if (pe_reuses(m, v->pe, t, tile.id))
        return fetch(m, l, v, t, tile, parent, names, err);
    double in_llb = lazy_fill(m, v, t, tile, parent, names, err);
    double at_pe = in_llb < 0 ? -1 : fetch(m, l, v, t, tile, in_llb, names, err);
    fcache_unit *u = fcache_find(&m->units, t, lazy_stay_of(m, v->pe, t), tile.id);
    if (u && at_pe >= 0)
        u->release = fmax(u->release, at_pe);
    return at_pe;
}

/* A refusal of fiber f of cached operand t at point v. */
static int refuse_fiber(const mem_model *m, const mem_visit *v, const char *const *names, int t,
                        const mem_fiber *f, sam_error *err)
{
    char where[256];
    double cap = m->hw.mem[HW_LLB].capacity;
    v->where(v->where_ctx, where, sizeof where);
    if (f->bytes > cap)
        error_set(err, "fiber %lld of %s in tile %s (%.0f bytes) does not fit in the llb buffer "
                  "(%.0f bytes)", (long long)f->crd, names[t], where, f->bytes, cap);
    else
        error_set(err, "fiber %lld of %s in tile %s (%.0f bytes) does not fit in the llb buffer "
                  "beside the tiles it holds", (long long)f->crd, names[t], where, f->bytes);
    return fit_hint(m, HW_LLB, err);
}

/* The fibers of cached operand t that point v touches, asked for from
 * `after` on: each from the cache or fetched into it, then read over the
 * PE's port. The cycle the PE has them all, or -1. */
static double stream_fibers(mem_model *m, const mem_visit *v, int t, double after,
                            const char *const *names, sam_error *err)
{
    double ready = after;
    for (size_t k = 0; k < m->nfibers[t]; k++) {
        const mem_fiber *f = &m->fibers[t][k];
        fcache_unit *u = fcache_find(&m->units, t, f->tile, f->crd);
        if (u) {
            fcache_use(&m->units, u);
        } else {
            err->msg[0] = '\0';
            if (f->bytes > m->hw.mem[HW_LLB].capacity ||
                !(u = unit_in(m, t, f->tile, f->crd, f->bytes, after, NULL, err)))
                return err->msg[0] ? -1 : refuse_fiber(m, v, names, t, f, err);
            m->traffic[t].fetched[HW_LLB]++;
        }
        double at_pe = llb_to_pe(m, t, v->pe, f->bytes, u->ready, f->crd);
        u->release = fmax(u->release, at_pe);
        ready = fmax(ready, at_pe);
    }
    return ready;
}

/* Cycles before the first byte of a result transfer at level l arrives. */
static double result_latency(const mem_model *m, int l)
{
    return m->hw.result_timed ? latency_of(m, mem_tensor_source(m, m->ntensors, l), l) : 0;
}

/* Moves bytes of the result's tile id at level `level` between level
 * l's buffer (processing element pe's, at the innermost level) and the
 * memory outward, over that memory's link, from cycle `after` on: the
 * cycle the transfer ends. An untimed result (result.timed = 0) counts
 * its bytes and ends at once. */
static double result_transfer(mem_model *m, int l, int pe, double bytes, double after,
                              int write, int64_t id, int level)
{
    hw_memory_id home = mem_tensor_source(m, m->ntensors, l);
    double moved = rounded(m, home, bytes);
    double occupy = 0, start = after;
    if (m->hw.result_timed) {
        occupy = moved / bytes_per_cycle(m, home, l, write);
        start = link_book(link_of(m, home, pe, write), after, occupy);
    }
    if (m->trace && occupy > 0) {
        int back = home == HW_LLB && write && m->hw.llb_write_bandwidth > 0;
        hw_trace_transfer(m->trace, &(hw_transfer){home, write ? home : m->at[l], pe, back,
                                                   m->ntensors, level, id, -1, start, occupy,
                                                   moved});
    }
    m->usage[home].busy += occupy;
    mem_traffic *tr = &m->traffic[m->ntensors];
    if (write) {
        tr->written[home] += moved;
        tr->flushed[m->at[l]]++;
    } else {
        tr->read[home] += moved;
    }
    double end = start + result_latency(m, l) + occupy;
    m->result_end = fmax(m->result_end, end);
    return end;
}

/* PE-level result tile id's entry in the table, added (touched in LLB
 * stay `stay`) when it has none; the table has room (hash_table_reserve
 * before the point). */
static mem_touch *touch_of(mem_model *m, int64_t id, uint64_t stay)
{
    int added;
    mem_touch *t = hash_table_add(&m->touched, (uint64_t)id, &added, NULL);
    if (added)
        t->stay = stay;
    return t;
}

/* Room for the LLB's next stay in stay_written. */
static int grow_stays(mem_model *m, sam_error *err)
{
    const mem_buffer *llb = buffer_of(m, 0, 0);
    if (llb->stay + 2 <= m->nstays)
        return 0;
    size_t n = m->nstays ? 2 * m->nstays : 64;
    double *w = realloc(m->stay_written, n * sizeof *w);
    if (!w)
        return error_set(err, "out of memory");
    memset(w + m->nstays, 0, (n - m->nstays) * sizeof *w);
    m->stay_written = w;
    m->nstays = n;
    return 0;
}

/* With llb.partials, the point's PE tile out: read back from DRAM the
 * first time this stay of the LLB's tile touches it, if it went out
 * before, once the LLB has room for it (beside the tile old, leaving);
 * its growth is what the stay will write. When it is in place, INFINITY
 * when the LLB never has room. */
static double touch_pe_tile(mem_model *m, int pe, const mem_result *out, const mem_leaving *old,
                            double in_place)
{
    mem_buffer *llb = buffer_of(m, 0, pe);
    mem_touch *t = touch_of(m, out->id, llb->stay - 1);
    /* The stay has the tile's bytes from its first touch on: all of them
     * then, its growth at later touches. */
    double had = out->before;
    if (t->stay != llb->stay) {
        /* Its bytes come back once the stay that last touched it wrote
         * them out. */
        if (llb->refilled && out->before > 0) {
            double from = room_at(m, 0, llb, llb->dirty + out->after, old,
                                  fmax(in_place, m->stay_written[t->stay]));
            if (isinf(from))
                return from;
            in_place = result_transfer(m, 0, pe, out->before, from, 0, out->id, 1);
        }
        t->stay = llb->stay;
        had = 0;
    }
    llb->dirty += out->after - had;
    return in_place;
}

/* With llb.eager, a final PE tile of the result (id), in the LLB at `at`,
 * goes on to DRAM: its share of its LLB tile (bytes), which that tile
 * will not write again. A PE tile that reaches the LLB after its LLB
 * tile left (a PE moving on late) was written with that tile. */
static void send_on(mem_model *m, int pe, int64_t id, double bytes, double at)
{
    result_transfer(m, 0, pe, bytes, at, 1, id, 1);
    buffer_of(m, 0, pe)->sent += bytes;
}

/* The result's tiles the point on processing element pe leaves, written
 * out, inner level first (the outer holds what the inner wrote), once
 * the points that made them are done: old[l], what leaves level l's
 * buffer. */
static void write_out_results(mem_model *m, int pe, const mem_result *out, mem_leaving *old)
{
    double written = 0;
    int r = m->ntensors;
    for (int l = m->nlevels - 1; l >= 0; l--) {
        mem_buffer *b = result_buffer(m, l, pe);
        double bytes = result_held(m, l, b);
        old[l] = (mem_leaving){0, 0};
        if (mem_tensor_held(m, r, l) && out[l].id != b->out_id && bytes > 0) {
            written = result_transfer(m, l, result_pe(m, b, pe), bytes, fmax(written, b->done),
                                      1, b->out_id, l);
            b->written = written - result_latency(m, l);
            if (partials_by_pe(m) && l == 0)
                m->stay_written[b->stay] = b->written;
            if (b == m->merger)
                touch_of(m, b->out_id, 0)->written = b->written;
            if (l == 1 && b->out_final && eager(m) && b->outer_id == buffer_of(m, 0, pe)->out_id)
                send_on(m, result_pe(m, b, pe), b->out_id, touch_of(m, b->out_id, 0)->share,
                        written);
            /* The merger's tile leaves no room in the point's PE buffer. */
            if (b != m->merger)
                old[l] = (mem_leaving){bytes, b->written};
        }
    }
}

/* A refusal of the result's tile at point v in level l's buffer. */
static int refuse_result(const mem_model *m, const mem_visit *v, const char *const *names, int l,
                         double bytes, sam_error *err)
{
    return refuse(m, v, names, m->ntensors, bytes, m->at[l], err);
}

/* The merger's tile out of level l, back in from the memory outward as
 * soon as its last write-out left (its own, not the merger's latest):
 * the points adding to it need not wait, as the merger merges what they
 * send with it; its next write-out waits. When it is in. */
static double merger_read_back(mem_model *m, int l, int pe, const mem_result *out)
{
    return result_transfer(m, l, pe, out->before, touch_of(m, out->id, 0)->written, 0, out->id,
                           l);
}

/* With llb.eager, the point's result tiles out[0..1] in the PE level's
 * buffer rb: its PE tile's share of its LLB tile grows by what the point
 * added there, over the LLB tile's stay however many runs of points it
 * takes, and the PE tile is final or not. */
static void add_share(mem_model *m, mem_buffer *rb, const mem_result *out)
{
    mem_touch *t = touch_of(m, out[1].id, 0);
    if (t->share_stay != m->llb_stays)
        *t = (mem_touch){t->id, t->stay, t->written, 0, m->llb_stays};
    t->share += out[0].after - out[0].before;
    rb->out_final = out[1].final;
    rb->outer_id = out[0].id;
}

/* The result's tiles the point returns to, read back in, outer level
 * first, each once its buffer has room for it as the point leaves it
 * (beside the tile leaving); *in_place, when they are all in. */
static int bring_in_results(mem_model *m, const mem_visit *v, const mem_leaving *old,
                            const char *const *names, double *in_place, sam_error *err)
{
    const mem_result *out = v->out;
    int r = m->ntensors, by_pe = partials_by_pe(m);
    /* A partial tile read back went out from the same buffer, at the
     * latest in the last write-out there: it comes back after that. */
    for (int l = 0; l < m->nlevels; l++) {
        mem_buffer *b = buffer_of(m, l, v->pe), *rb = result_buffer(m, l, v->pe);
        double merged_in = 0;
        if (!mem_tensor_held(m, r, l))
            continue;
        if (out[l].id != rb->out_id && out[l].before > 0 && rb == m->merger) {
            merged_in = merger_read_back(m, l, v->pe, &out[l]);
        } else if (out[l].id != rb->out_id && out[l].before > 0 && !(by_pe && l == 0)) {
            double from = room_at(m, l, b, out[l].after, &old[l], fmax(*in_place, rb->written));
            if (isinf(from))
                return refuse_result(m, v, names, l, out[l].after, err);
            *in_place = result_transfer(m, l, v->pe, out[l].before, from, 0, out[l].id, l);
        }
        if (by_pe && l == 0 && out[l].id != b->out_id) {
            b->stay++;
            b->refilled = out[l].before > 0;
            b->dirty = 0;
        }
        if (by_pe && l == 1) {
            const mem_buffer *llb = buffer_of(m, 0, v->pe);
            double dirty = llb->dirty;
            *in_place = touch_pe_tile(m, v->pe, &out[l], &old[0], *in_place);
            if (isinf(*in_place))
                return refuse_result(m, v, names, 0, dirty + out[l].after, err);
        }
        if (l == 0 && out[l].id != rb->out_id) {
            rb->sent = 0;
            m->llb_stays++;
        }
        if (l == 1 && eager(m))
            add_share(m, rb, out);
        if (rb == m->merger) {
            /* The merger's tile is done when it is back in and the points
             * adding to it are computed. */
            if (out[l].id != rb->out_id)
                rb->done = merged_in;
            m->merger_pe = v->pe;
        }
        rb->out_id = out[l].id;
        rb->out_bytes = out[l].after;
    }
    return 0;
}

/* The point's result tiles, each as large as the point leaves it, from
 * the cycle it starts: from `at` on, the first cycle every buffer has
 * room for them beside its operand tiles and the tiles leaving, into
 * *start; the peaks counted there. */
static int room_for_results(mem_model *m, const mem_visit *v, const mem_leaving *old, double at,
                            const char *const *names, double *start, sam_error *err)
{
    for (int l = 0; l < m->nlevels; l++) {
        const mem_buffer *b = buffer_of(m, l, v->pe);
        double bytes = result_held(m, l, result_buffer(m, l, v->pe));
        at = room_at(m, l, b, bytes, &old[l], at);
        if (isinf(at))
            return refuse_result(m, v, names, l, bytes, err);
    }
    /* The PE's pipeline starts a point on a whole cycle. */
    *start = ceil(at);
    for (int l = 0; l < m->nlevels; l++) {
        const mem_buffer *b = buffer_of(m, l, v->pe);
        double bytes = result_held(m, l, result_buffer(m, l, v->pe));
        double leaving = *start < old[l].gone ? old[l].bytes : 0;
        hw_memory_id at_l = m->at[l];
        m->usage[at_l].peak = fmax(m->usage[at_l].peak,
                                   operands_held(m, l, b, *start) + bytes + leaving);
        double *peak = &m->traffic[m->ntensors].peak[at_l];
        *peak = fmax(*peak, bytes);
    }
    return 0;
}

/* The result's tiles for a point: those it leaves written out, those it
 * returns to read back in, and room for all it adds. *start, when the
 * point may start. */
static int result_tiles(mem_model *m, const mem_visit *v, double ready, const char *const *names,
                        double *start, sam_error *err)
{
    mem_leaving old[MEM_MAX_LEVELS];
    double in_place = 0;
    write_out_results(m, v->pe, v->out, old);
    if (bring_in_results(m, v, old, names, &in_place, err))
        return -1;
    return room_for_results(m, v, old, fmax(ready, in_place), names, start, err);
}

int mem_point(mem_model *m, const mem_visit *v, const char *const *names, double *start,
              sam_error *err)
{
    double ready = v->earliest;
    if (open_pe(m, v->pe, err) ||
        ((partials_by_pe(m) || m->merger || eager(m)) && hash_table_reserve(&m->touched, err)) ||
        (partials_by_pe(m) && grow_stays(m, err)))
        return -1;
    double others = 0, on_chip = 0;
    for (int t = 0; t < m->ntensors; t++) {
        double parent = 0;
        for (int l = 0; l < m->nlevels; l++) {
            mem_tile x = v->tile[t * m->nlevels + l];
            if (x.id < 0 || !mem_tensor_held(m, t, l))
                continue;
            parent = tile_in_place(m, l, v, t, x, parent, names, err);
            if (parent < 0)
                return -1;
            if (m->at[l] == HW_LLB)
                on_chip = fmax(on_chip, parent);
        }
        others = fmax(others, parent);
    }
    ready = fmax(ready, others);
    /* A point's fibers are asked for once its other tiles, whose
     * coordinates select them, are on chip: in the LLB where it holds a
     * level (a cache's fetches run ahead of the PE, as Gamma's
     * FiberCache prefetches), else in the PE. */
    if (!mem_llb_holds_level(m))
        on_chip = others;
    for (int t = 0; t < m->ntensors; t++) {
        double in = m->cached[t] ? stream_fibers(m, v, t, on_chip, names, err) : 0;
        if (in < 0)
            return -1;
        ready = fmax(ready, in);
    }
    if (result_tiles(m, v, ready, names, start, err))
        return -1;
    double end = *start + v->compute;
    m->compute_end = fmax(m->compute_end, end);
    /* Points overlap in the pipeline: the PE is busy over their union. */
    const mem_buffer *own = buffer_of(m, m->nlevels - 1, v->pe);
    m->usage[HW_PE].busy += fmax(0, end - fmax(*start, own->done));
    for (int l = 0; l < m->nlevels; l++) {
        mem_buffer *b = buffer_of(m, l, v->pe);
        b->done = fmax(b->done, end);
        for (int t = 0; t < m->ntensors; t++)
            if (v->tile[t * m->nlevels + l].id >= 0 && mem_tensor_held(m, t, l))
                current_slot(m, l, b, t)->release =
                    v->read_until && l == m->nlevels - 1 ? *start + v->read_until[t] : end;
    }
    if (m->merger)
        m->merger->done = fmax(m->merger->done, end);
    return 0;
}

/* The tiles at each level that no point needed. */
static void count_skipped(mem_model *m)
{
    for (int t = 0; t < m->ntensors; t++)
        for (int l = 0; l < m->nlevels && !m->cached[t]; l++) {
            uint64_t needed = 0;
            for (size_t k = 0; m->needed[t][l] && k < m->ntiles[t][l]; k++)
                needed += m->needed[t][l][k];
            m->traffic[t].skipped[m->at[l]] = m->ntiles[t][l] - needed;
        }
}

double mem_finish(mem_model *m)
{
    count_skipped(m);
    double end = fmax(m->compute_end, m->result_end);
    for (int l = m->nlevels - 1; l >= 0; l--)
        for (int pe = 0; pe < buffer_count(m, l); pe++) {
            mem_buffer *b = result_buffer(m, l, pe);
            double bytes = l ? b->out_bytes : llb_out_bytes(m, b);
            if (bytes > 0)
                end = fmax(end, result_transfer(m, l, result_pe(m, b, pe), bytes, b->done, 1,
                                                b->out_id, l));
            b->out_id = -1;
            b->out_bytes = 0;
        }
    return end;
}
