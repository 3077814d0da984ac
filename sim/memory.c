#include "memory.h"

#include <math.h>
#include <string.h>

int mem_init(mem_model *m, const hw_desc *hw, int ntensors, int nlevels, sam_error *err)
{
    memset(m, 0, sizeof *m);
    m->hw = *hw;
    m->ntensors = ntensors;
    m->nlevels = nlevels;
    for (int l = 0; l < MEM_MAX_LEVELS; l++)
        m->out_id[l] = -1;
    int buffers = hw->mem[HW_LLB].capacity > 0 ? 2 : 1;
    if (ntensors > MEM_MAX_TENSORS)
        return error_set(err, "more than %d operands for the memory model", MEM_MAX_TENSORS);
    if (nlevels < 1 || nlevels > buffers)
        return error_set(err, "a tiling of %d levels needs as many buffers; the hardware has %d "
                              "(llb.capacity = 0 leaves only the PE buffer)", nlevels, buffers);
    m->at[nlevels - 1] = HW_PE;
    if (nlevels == 2)
        m->at[0] = HW_LLB;
    for (int l = 0; l < MEM_MAX_LEVELS; l++)
        for (int t = 0; t < MEM_MAX_TENSORS; t++)
            for (int k = 0; k < MEM_MAX_BUFFERING; k++)
                m->slot[l][t][k].id = -1;
    return 0;
}

/* Where level l's tiles come from: the buffer of the level above, or
 * DRAM (through the LLB, when it holds no level). */
static hw_memory_id source_of(const mem_model *m, int l)
{
    return l ? m->at[l - 1] : HW_DRAM;
}

/* Bytes a cycle from src to the buffer of level l: a pass through the
 * LLB goes at the slower of its two links. */
static double bytes_per_cycle(const mem_model *m, hw_memory_id src, int l)
{
    double bw = m->hw.mem[src].bandwidth;
    if (src == HW_DRAM && m->at[l] == HW_PE && m->hw.mem[HW_LLB].capacity > 0 &&
        m->hw.mem[HW_LLB].bandwidth < bw)
        bw = m->hw.mem[HW_LLB].bandwidth;
    return bw / m->hw.clock_ghz;
}

static double latency_of(const mem_model *m, hw_memory_id src, int l)
{
    double lat = m->hw.mem[src].latency;
    if (src == HW_DRAM && m->at[l] == HW_PE && m->hw.mem[HW_LLB].capacity > 0)
        lat += m->hw.mem[HW_LLB].latency;
    return lat;
}

/* Bytes moved for bytes of data: whole lines of the source. */
static double rounded(const mem_model *m, hw_memory_id src, double bytes)
{
    double line = m->hw.mem[src].line;
    return ceil(bytes / line) * line;
}

static int buffering(const mem_model *m, int l)
{
    return (int)m->hw.mem[m->at[l]].buffering;
}

/* Bytes level l's buffer holds at cycle t: tiles not yet released, and
 * the result's tile. */
static double held(const mem_model *m, int l, double t)
{
    double bytes = m->out_id[l] >= 0 ? m->out_bytes[l] : 0;
    for (int i = 0; i < m->ntensors; i++)
        for (int k = 0; k < buffering(m, l); k++) {
            const mem_slot *s = &m->slot[l][i][k];
            if (s->id >= 0 && s->release > t)
                bytes += s->bytes;
        }
    return bytes;
}

/* The first release after t in level l's buffer, or INFINITY. */
static double next_release(const mem_model *m, int l, double t)
{
    double next = INFINITY;
    for (int i = 0; i < m->ntensors; i++)
        for (int k = 0; k < buffering(m, l); k++) {
            const mem_slot *s = &m->slot[l][i][k];
            if (s->id >= 0 && s->release > t && s->release < next)
                next = s->release;
        }
    return next;
}

/* Operand t's tile for level l in place: reused, or fetched after parent
 * (the cycle its parent tile is in place). Its ready cycle, or -1. */
static double fetch(mem_model *m, int l, int t, mem_tile tile, double parent,
                    const char *const *names, const char *where, sam_error *err)
{
    int n = buffering(m, l);
    mem_slot *cur = &m->slot[l][t][(m->next[l][t] + n - 1) % n];
    if (cur->id == tile.id)
        return cur->ready;
    hw_memory_id src = source_of(m, l), dst = m->at[l];
    double cap = m->hw.mem[dst].capacity;
    if (tile.bytes > cap)
        return error_set(err, "tile %s of %s (%.0f bytes) does not fit in the %s buffer (%.0f "
                         "bytes)", where, names[t], tile.bytes, hw_memory_names[dst], cap);
    mem_slot *victim = &m->slot[l][t][m->next[l][t] % n];
    victim->id = -1;
    double start = fmax(fmax(m->link_free[src], victim->release), parent);
    while (held(m, l, start) + tile.bytes > cap) {
        start = next_release(m, l, start);
        if (isinf(start))
            return error_set(err, "tile %s of %s (%.0f bytes) does not fit in the %s buffer "
                             "beside the point's other tiles", where, names[t], tile.bytes,
                             hw_memory_names[dst]);
    }
    double moved = rounded(m, src, tile.bytes), occupy = moved / bytes_per_cycle(m, src, l);
    m->link_free[src] = start + occupy;
    m->usage[src].busy += occupy;
    m->usage[dst].bytes_in += moved;
    m->usage[dst].peak = fmax(m->usage[dst].peak, held(m, l, start) + tile.bytes);
    m->traffic[t].read[src] += moved;
    m->traffic[t].fetched[dst]++;
    *victim = (mem_slot){tile.id, tile.bytes, start + latency_of(m, src, l) + occupy, INFINITY};
    m->next[l][t]++;
    return victim->ready;
}

/* Moves bytes of the result between level l's buffer and the memory
 * outward, over that memory's link, from cycle `after` on: the cycle the
 * transfer ends. */
static double result_transfer(mem_model *m, int l, double bytes, double after, int write)
{
    hw_memory_id home = source_of(m, l);
    double moved = rounded(m, home, bytes), occupy = moved / bytes_per_cycle(m, home, l);
    double start = fmax(m->link_free[home], after);
    m->link_free[home] = start + occupy;
    m->usage[home].busy += occupy;
    if (write)
        m->traffic[m->ntensors].written[home] += moved;
    else
        m->traffic[m->ntensors].read[home] += moved;
    return start + latency_of(m, home, l) + occupy;
}

/* The result's tiles for the point: those it leaves written out, inner
 * level first (the outer holds what the inner wrote), those it returns to
 * read back in, outer first. When the point may start. */
static double result_tiles(mem_model *m, const mem_result *out, double ready)
{
    double written = m->compute_end;
    for (int l = m->nlevels - 1; l >= 0; l--)
        if (out[l].id != m->out_id[l] && m->out_id[l] >= 0)
            written = result_transfer(m, l, m->out_bytes[l], written, 1);
    double in_place = 0;
    for (int l = 0; l < m->nlevels; l++) {
        if (out[l].id != m->out_id[l] && out[l].before > 0)
            in_place = result_transfer(m, l, out[l].before, in_place, 0);
        m->out_id[l] = out[l].id;
        m->out_bytes[l] = out[l].after;
    }
    return fmax(ready, in_place);
}

int mem_point(mem_model *m, const mem_visit *v, const char *const *names, const char *where,
              double *start, sam_error *err)
{
    double ready = v->earliest;
    for (int t = 0; t < m->ntensors; t++) {
        double parent = 0;
        for (int l = 0; l < m->nlevels; l++) {
            mem_tile x = v->tile[t * m->nlevels + l];
            if (x.id < 0)
                continue;
            parent = fetch(m, l, t, x, parent, names, where, err);
            if (parent < 0)
                return -1;
        }
        ready = fmax(ready, parent);
    }
    *start = result_tiles(m, v->out, ready);
    double end = *start + v->compute;
    m->compute_end = fmax(m->compute_end, end);
    for (int t = 0; t < m->ntensors; t++)
        for (int l = 0; l < m->nlevels; l++)
            if (v->tile[t * m->nlevels + l].id >= 0) {
                int n = buffering(m, l);
                m->slot[l][t][(m->next[l][t] + n - 1) % n].release = end;
            }
    return 0;
}

double mem_finish(mem_model *m)
{
    double end = m->compute_end;
    for (int l = m->nlevels - 1; l >= 0; l--)
        if (m->out_id[l] >= 0) {
            end = result_transfer(m, l, m->out_bytes[l], end, 1);
            m->out_id[l] = -1;
        }
    return end;
}
