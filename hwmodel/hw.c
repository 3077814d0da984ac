#include "hw.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/keyval.h"
#include "../common/number.h"

const char *const hw_memory_names[HW_MEMORIES] = {"dram", "llb", "pe"};

#define MEM(m, field) offsetof(hw_desc, mem) + (m) * sizeof(hw_memory) + offsetof(hw_memory, field)
#define TOP(field) offsetof(hw_desc, field)

/* The SAM artifact's ExTensor configuration: a 17.1 MB LLB fed at 68.256
 * GB/s after 200 cycles, a PE buffer of 64 kB (ExTensor's) fed at 256
 * bytes a cycle after 1, at 1 GHz. */
const param hw_params[] = {
    {"clock.ghz", "GHz", "the clock: seconds = cycles / (ghz * 1e9)",
     1, 1e-3, 1e3, 0, TOP(clock_ghz)},
    {"dram.bandwidth", "GB/s", "DRAM to the LLB (to the PE buffer without one)",
     68.256, 1e-3, 1e6, 0, MEM(HW_DRAM, bandwidth)},
    {"dram.latency", "cycles", "before a DRAM transfer's first byte arrives",
     200, 0, 1e9, 1, MEM(HW_DRAM, latency)},
    {"dram.line", "bytes", "every DRAM transfer is whole lines of this",
     1, 1, 1 << 20, 1, MEM(HW_DRAM, line)},
    {"dram.interleave", "0 or 1", "1: DRAM serves the transfers that are ready a burst at a time, "
     "as a controller with many requests in flight does: a transfer takes the link's free "
     "stretches in turn, split across them, rather than waiting for one long enough; 0: one "
     "transfer at a time, whole", 0, 0, 1, 1, MEM(HW_DRAM, interleave)},
    {"llb.capacity", "bytes", "the last-level buffer; 0: none, tiles go straight to the PE",
     17.1e6, 0, 1e15, 1, MEM(HW_LLB, capacity)},
    {"llb.bandwidth", "GB/s", "the LLB to each PE buffer",
     256, 1e-3, 1e6, 0, MEM(HW_LLB, bandwidth)},
    {"llb.write.bandwidth", "GB/s", "the PE buffers to the LLB, a link of its own beside the one "
     "llb.bandwidth gives the other way (SIGMA's reduction network beside its distribution "
     "network); 0: that one link both ways", 0, 0, 1e6, 0, TOP(llb_write_bandwidth)},
    {"llb.latency", "cycles", "before an LLB transfer's first byte arrives",
     1, 0, 1e9, 1, MEM(HW_LLB, latency)},
    {"llb.interleave", "0 or 1", "1: the LLB's link to each PE buffer (and back) splits "
     "transfers across its free stretches, as dram.interleave does DRAM's; 0: whole",
     0, 0, 1, 1, MEM(HW_LLB, interleave)},
    {"llb.buffering", "tiles", "outer tiles of each tensor the LLB holds at once",
     2, 1, 64, 1, MEM(HW_LLB, buffering)},
    {"llb.line", "bytes", "every LLB transfer is whole lines of this",
     1, 1, 1 << 20, 1, MEM(HW_LLB, line)},
    {"pe.capacity", "bytes", "the processing element's buffer",
     65536, 1, 1e15, 1, MEM(HW_PE, capacity)},
    {"pe.buffering", "tiles", "innermost tiles of each tensor the PE buffer holds at once", 2, 1,
     64, 1, MEM(HW_PE, buffering)},
    {"pe.count", "PEs", "processing elements, each with its own buffer and pipeline; a tile "
     "point goes to the one whose number is its result tile's modulo the count",
     1, 1, 4096, 1, TOP(pe_count)},
    {"pe.dynamic", "0 or 1", "1: a point goes to the PE whose last point added to its result "
     "tile, else to the one whose pipeline takes it first (a scheduler handing out work as PEs "
     "free up); 0: by result tile", 0, 0, 1, 1, TOP(pe_dynamic)},
    {"pe.merge", "0 or 1", "1: the result's PE tiles are merged beside the PE buffers, as by "
     "ExTensor's partial output buffer, not held by a PE: points adding to one tile may run on "
     "several PEs at once (with pe.dynamic a point goes to the PE that takes it first, whatever "
     "its tile), a tile read back comes into the merger while they compute, and it leaves when "
     "the points move on to another; 0: a PE holds its points' result tile",
     0, 0, 1, 1, TOP(pe_merge)},
    {"pe.stream", "0 or 1", "1: a PE streams its tile points through its graph, each block "
     "taking a point's tokens once through with the point before (the SAM artifact's pipelined "
     "tiles); 0: a point starts once every block it uses has drained", 0, 0, 1, 1, TOP(pe_stream)},
    {"pe.rate", "tokens/cycle", "tokens each block of a PE's graph takes a cycle: a datapath "
     "that wide (SIGMA's array), a point's simulated cycles and its blocks' busy cycles counted "
     "over it, rounded up; 1: SAM's one token a cycle", 1, 1, 1 << 20, 1, TOP(pe_rate)},
    {"lane.share", "lanes", "lanes sharing the datapath: each block in a lane of a "
     "parallelizer takes pe.rate / lane.share tokens a cycle, while the blocks that deal to the "
     "lanes and gather from them take pe.rate (SIGMA's lanes share its multipliers, and its "
     "distribution and reduction networks reach every multiplier); 1: pe.rate, as every block",
     1, 1, 1 << 20, 1, TOP(lane_share)},
    {"result.timed", "0 or 1", "0: the result's write-outs and read-backs count their bytes but "
     "take no time on any link, as reports that time an accelerator's array and the networks "
     "feeding it alone do (SIGMA's, and TeAAL's model of it); 1: they take their links' time",
     1, 0, 1, 1, TOP(result_timed)},
    {"llb.eager", "0 or 1", "1: a PE tile of the result that no later point adds to goes on "
     "from the LLB to DRAM as soon as it arrives there, rather than with its LLB tile when the "
     "points move on (where that LLB tile is not read back later: a partial output buffer "
     "writing each output once merged); 0: with its LLB tile", 0, 0, 1, 1, TOP(llb_eager)},
    {"llb.partials", "0 or 1", "1: a result tile that comes back to the LLB is read back, and "
     "written out again, only in the PE tiles points touch; 0: whole",
     0, 0, 1, 1, TOP(llb_partials)},
    {"llb.lazy", "0 or 1", "1: an LLB tile is not fetched whole: each of its PE tiles comes "
     "from DRAM the first time a point of the tile's stay needs it, and the LLB holds the PE "
     "tiles fetched (the least recently used going when it needs room); 0: whole",
     0, 0, 1, 1, TOP(llb_lazy)},
    {"llb.reuse", "0 or 1", "1: a tile the LLB holds in any of its slots serves a point that "
     "needs it again without a fetch, and the least recently used slot is the one replaced, "
     "its tile kept until its room is needed; 0: only the tile the point before used stays",
     0, 0, 1, 1, MEM(HW_LLB, reuse)},
    {"pe.reuse", "0 or 1", "the same for each PE buffer's slots", 0, 0, 1, 1, MEM(HW_PE, reuse)},
    {"pe.release", "0 or 1", "1: a PE tile's slot frees once the last block of the point's "
     "graph that reads the tile is done with it; 0: once the point is computed",
     0, 0, 1, 1, TOP(pe_release)},
    {"bytes.crd", "bytes", "a coordinate (a crd array's entry)", 4, 0, 64, 1, TOP(bytes_crd)},
    {"bytes.ref", "bytes", "a reference (a seg array's entry)", 4, 0, 64, 1, TOP(bytes_ref)},
    {"bytes.val", "bytes", "a value", 4, 0, 64, 1, TOP(bytes_val)},
    {NULL, NULL, NULL, 0, 0, 0, 0, 0},
};

void hw_defaults(hw_desc *hw)
{
    memset(hw, 0, sizeof *hw);
    for (const param *p = hw_params; p->name; p++)
        *(double *)((char *)hw + p->offset) = p->def;
}

/* The keys, for the message that refuses another. */
static void list_keys(char *buf, size_t size)
{
    size_t used = 0;
    for (const param *p = hw_params; p->name && used < size; p++)
        used += (size_t)snprintf(buf + used, size - used, "%s%s", used ? ", " : "", p->name);
}

enum { PLACE_PE, PLACE_LLB_PE, PLACE_CACHE };

/* "pe", "llb,pe" (blanks allowed around the comma) or "cache": which, or
 * -1. */
static int parse_place(const char *value)
{
    char compact[16];
    size_t n = 0;
    if (strlen(value) >= sizeof compact)
        return -1;
    for (const char *c = value; *c; c++)
        if (*c != ' ' && *c != '\t')
            compact[n++] = *c;
    compact[n] = '\0';
    return !strcmp(compact, "llb,pe") ? PLACE_LLB_PE : !strcmp(compact, "pe") ? PLACE_PE :
           !strcmp(compact, "cache") ? PLACE_CACHE : -1;
}

static int set_place(hw_desc *hw, const char *tensor, const char *value, const char *origin,
                     sam_error *err)
{
    int place = parse_place(value);
    if (!*tensor || strlen(tensor) >= HW_NAME)
        return error_set(err, "%s: place.%s: not a tensor name", origin, tensor);
    if (place < 0)
        return error_set(err, "%s: place.%s = %s: the buffers that hold %s's tiles are pe, "
                         "llb,pe or cache", origin, tensor, value, tensor);
    for (int k = 0; k < hw->nplaces; k++)
        if (!strcmp(hw->place[k].tensor, tensor))
            return error_set(err, "%s: place.%s is given twice", origin, tensor);
    if (hw->nplaces == HW_MAX_PLACES)
        return error_set(err, "%s: more than %d placements", origin, HW_MAX_PLACES);
    hw_place *p = &hw->place[hw->nplaces++];
    snprintf(p->tensor, sizeof p->tensor, "%s", tensor);
    snprintf(p->origin, sizeof p->origin, "%s", origin);
    p->llb = place == PLACE_LLB_PE;
    p->cache = place == PLACE_CACHE;
    return 0;
}

/* Tensor's layout entry, made when it has none; key (for messages) is
 * refused when the entry has what `part` gives already. */
static hw_layout *layout_entry(hw_desc *hw, const char *tensor, const char *key, unsigned part,
                               const char *origin, sam_error *err)
{
    if (!*tensor || strlen(tensor) >= HW_NAME)
        return error_set(err, "%s: %s: not a tensor name", origin, key), NULL;
    for (int k = 0; k < hw->nlayouts; k++) {
        hw_layout *l = &hw->layout[k];
        if (strcmp(l->tensor, tensor))
            continue;
        if (l->given & part)
            return error_set(err, "%s: %s is given twice", origin, key), NULL;
        return l;
    }
    if (hw->nlayouts == HW_MAX_PLACES)
        return error_set(err, "%s: more than %d tensors with layouts", origin, HW_MAX_PLACES),
               NULL;
    hw_layout *l = &hw->layout[hw->nlayouts++];
    memset(l, 0, sizeof *l);
    snprintf(l->tensor, sizeof l->tensor, "%s", tensor);
    snprintf(l->origin, sizeof l->origin, "%s", origin);
    return l;
}

static int set_layout(hw_desc *hw, const char *tensor, const char *value, const char *origin,
                      sam_error *err)
{
    storage_layout form;
    char key[HW_NAME + 16];
    snprintf(key, sizeof key, "layout.%s", tensor);
    if (storage_layout_parse(value, &form, err))
        return error_wrap(err, "%s: %s", origin, key);
    hw_layout *l = layout_entry(hw, tensor, key, HW_LAYOUT_FORM, origin, err);
    if (!l)
        return -1;
    l->layout.tiled = form.tiled;
    l->layout.coo = form.coo;
    l->layout.nlevels = form.nlevels;
    memcpy(l->layout.kind, form.kind, sizeof form.kind);
    l->given |= HW_LAYOUT_FORM;
    return 0;
}

/* `bytes.T.crd`, `.ref` or `.val` (name: "T.crd"): 0 when name is none
 * of them (not taken), -1 on an error. */
static int set_widths(hw_desc *hw, const char *name, const char *value, const char *origin,
                      sam_error *err)
{
    static const char *const kinds[] = {"crd", "ref", "val"};
    static const unsigned parts[] = {HW_LAYOUT_CRD, HW_LAYOUT_REF, HW_LAYOUT_VAL};
    const char *dot = strrchr(name, '.');
    char tensor[HW_NAME + 16], key[2 * HW_NAME];
    for (int k = 0; dot && k < 3; k++) {
        if (strcmp(dot + 1, kinds[k]))
            continue;
        snprintf(tensor, sizeof tensor, "%.*s", (int)(dot - name), name);
        snprintf(key, sizeof key, "bytes.%s", name);
        /* Read once aside, so that a bad value makes no entry. */
        storage_layout widths = {0};
        if (storage_layout_widths(&widths, kinds[k], value, err))
            return error_wrap(err, "%s: %s", origin, key);
        hw_layout *l = layout_entry(hw, tensor, key, parts[k], origin, err);
        if (!l)
            return -1;
        storage_layout_widths(&l->layout, kinds[k], value, err);
        l->given |= parts[k];
        return 1;
    }
    return 0;
}

/* `fit.MEMORY = TEXT`, for the LLB or the PE buffer. */
static int set_fit(hw_desc *hw, const char *memory, const char *value, const char *origin,
                   sam_error *err)
{
    for (int m = HW_LLB; m < HW_MEMORIES; m++) {
        if (strcmp(memory, hw_memory_names[m]))
            continue;
        if (strlen(value) >= sizeof hw->fit[m])
            return error_set(err, "%s: fit.%s: at most %zu characters", origin, memory,
                             sizeof hw->fit[m] - 1);
        snprintf(hw->fit[m], sizeof hw->fit[m], "%s", value);
        return 0;
    }
    return error_set(err, "%s: fit.%s: the buffers are llb and pe", origin, memory);
}

static int set_param(void *ctx, const char *key, const char *value, const char *origin,
                     sam_error *err)
{
    char keys[1024];
    if (!strncmp(key, "place.", 6))
        return set_place(ctx, key + 6, value, origin, err);
    if (!strncmp(key, "layout.", 7))
        return set_layout(ctx, key + 7, value, origin, err);
    if (!strncmp(key, "fit.", 4))
        return set_fit(ctx, key + 4, value, origin, err);
    const param *p = param_find(hw_params, key, strlen(key));
    int widths = !p && !strncmp(key, "bytes.", 6) ? set_widths(ctx, key + 6, value, origin, err) : 0;
    if (widths)
        return widths < 0 ? -1 : 0;
    if (!p) {
        list_keys(keys, sizeof keys);
        return error_set(err, "%s: unknown key %s (the keys: %s, place.TENSOR, layout.TENSOR, "
                         "bytes.TENSOR.crd, .ref, .val, fit.llb, fit.pe)", origin, key,
                         keys);
    }
    if (!*value)
        return error_set(err, "%s: %s has no value", origin, key);
    double v;
    char why[256];
    if (param_parse(p, value, &v, why, sizeof why))
        return error_set(err, "%s: %s", origin, why);
    *(double *)((char *)ctx + p->offset) = v;
    return 0;
}

int hw_read(const char *path, hw_desc *hw, sam_error *err)
{
    return keyval_read(path, set_param, hw, err);
}

int hw_read_text(const char *name, const char *text, hw_desc *hw, sam_error *err)
{
    return keyval_read_text(name, text, set_param, hw, err);
}

int hw_set(hw_desc *hw, const char *key, const char *value, const char *origin, sam_error *err)
{
    return set_param(hw, key, value, origin, err);
}

const hw_place *hw_place_of(const hw_desc *hw, const char *name)
{
    for (int k = 0; k < hw->nplaces; k++)
        if (!strcmp(hw->place[k].tensor, name))
            return &hw->place[k];
    return NULL;
}

int hw_llb_holds(const hw_desc *hw, const char *name)
{
    const hw_place *p = hw_place_of(hw, name);
    return p ? p->llb : 1;
}

int hw_check_places(const hw_desc *hw, const char *const *names, int n, sam_error *err)
{
    for (int k = 0; k < hw->nplaces; k++) {
        int found = 0;
        for (int t = 0; t < n && !found; t++)
            found = !strcmp(names[t], hw->place[k].tensor);
        if (!found)
            return error_set(err, "%s: place.%s: the run has no tensor %s", hw->place[k].origin,
                             hw->place[k].tensor, hw->place[k].tensor);
    }
    return 0;
}

const storage_layout *hw_layout_of(const hw_desc *hw, const char *name)
{
    for (int k = 0; k < hw->nlayouts; k++)
        if (!strcmp(hw->layout[k].tensor, name))
            return &hw->layout[k].layout;
    return NULL;
}

int hw_check_layouts(const hw_desc *hw, const char *const *names,
                     const level_format *const *formats, int n, sam_error *err)
{
    for (int k = 0; k < hw->nlayouts; k++) {
        const hw_layout *l = &hw->layout[k];
        int t = 0;
        while (t < n && strcmp(names[t], l->tensor))
            t++;
        if (t == n)
            return error_set(err, "%s: layout.%s: the run has no tensor %s", l->origin,
                             l->tensor, l->tensor);
        if (storage_layout_check(&l->layout, formats[t], err))
            return error_wrap(err, "%s: layout.%s", l->origin, l->tensor);
    }
    return 0;
}
