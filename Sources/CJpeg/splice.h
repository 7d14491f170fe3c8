/* One baseline file from two written side by side (part of shim.h: included from it). The top part
   holds the image's first MCU rows; the bottom part starts an MCU row earlier, so that after that
   row its DC predictors are the whole image's. Their coded data is joined at the bit, on lengths
   counted beforehand (cjpeg_part_bits): the top's first `top_bits`, then the bottom's bits after
   the overlap row's; padded with ones and byte-stuffed as libjpeg does, behind the top's headers
   with the whole height in its frame header: libjpeg's own file, byte for byte. */
#ifndef CJPEG_SPLICE_H
#define CJPEG_SPLICE_H

/* The bottom part's planes, from the MCU row before the cut (`p`), and its first image row. */
static inline int cjpeg_bottom_planes(const unsigned char *const planes[3], const int strides[3], const cjpeg_layout *l,
                                      int split_rows, const unsigned char *p[3]) {
    int first = (split_rows - 1) * 8 * l->maxv;
    for (int c = 0; c < 3; c++) p[c] = planes[c];
    for (int c = 0; c < l->components; c++) p[c] = planes[c] + (size_t)(first * l->v[c] / l->maxv) * (size_t)strides[c];
    return first;
}

/* Part `part` (0 top, 1 bottom) of the planes cut after `split_rows` MCU rows, written with `tables`
   as cjpeg_encode_planes writes. Returns its size with the file in *out, or -1 (message set). */
static inline long cjpeg_encode_part(const unsigned char *const planes[3], const int strides[3], int width, int height, int gray,
                                     int full_chroma, int quality, const cjpeg_tables *tables, int split_rows, int part,
                                     unsigned char **out, char *message, int message_len) {
    cjpeg_layout l;
    cjpeg_layout_of(width, height, gray, full_chroma, &l);
    if (!part)
        return cjpeg_encode_planes(planes, strides, width, split_rows * 8 * l.maxv, gray, full_chroma, quality, 0, tables,
                                   out, message, message_len);
    const unsigned char *p[3];
    int first = cjpeg_bottom_planes(planes, strides, &l, split_rows, p);
    return cjpeg_encode_planes(p, strides, width, height - first, gray, full_chroma, quality, 0, tables, out, message, message_len);
}

/* The offset of the coded data (just past the SOS segment) and of SOF0's height, or -1. */
static inline long cjpeg_scan_start(const unsigned char *f, long size, long *height_at) {
    long i = 2;
    *height_at = -1;
    while (i + 4 <= size && f[i] == 0xFF) {
        int marker = f[i + 1];
        long len = (long)f[i + 2] << 8 | f[i + 3];
        if (marker == 0xC0 && i + 7 <= size) *height_at = i + 5;
        if (marker == 0xDA) return i + 2 + len <= size && *height_at > 0 ? i + 2 + len : -1;
        i += 2 + len;
    }
    return -1;
}

/* Joins the parts cjpeg_encode_part wrote at the quality of `divisors`. `first_bits`, `total_bits`:
   the measured lengths of the top rows' coded data and of all of it (cjpeg_multi_finish). Returns
   the size with the malloc'd file in *out, or -1 (message set) when the parts are not the lengths
   counted for them. */
static inline long cjpeg_splice(const unsigned char *top, long top_size, const unsigned char *bottom, long bottom_size,
                                const unsigned char *const planes[3], const int strides[3], int width, int height, int gray,
                                int full_chroma, const cjpeg_divisors *divisors, const cjpeg_tables *tables, int split_rows,
                                long long first_bits, long long total_bits, unsigned char **out, char *message, int message_len) {
    long height_at, unused;
    long ts = cjpeg_scan_start(top, top_size, &height_at), bs = cjpeg_scan_start(bottom, bottom_size, &unused);
    if (ts < 0 || bs < 0 || top_size < ts + 2 || bottom_size < bs + 2) {
        snprintf(message, (size_t)message_len, "internal: a part has no scan");
        return -1;
    }
    /* The overlap row's bits in the bottom part, its DCs predicted from 0 there. */
    cjpeg_layout l;
    cjpeg_layout_of(width, height, gray, full_chroma, &l);
    const unsigned char *p[3];
    int first = cjpeg_bottom_planes(planes, strides, &l, split_rows, p);
    cjpeg_multi_part *overlap = malloc(sizeof(cjpeg_multi_part));
    if (!overlap) { snprintf(message, (size_t)message_len, "out of memory"); return -1; }
    cjpeg_multi_rows(p, strides, width, height - first, gray, full_chroma, divisors, 1, 0, 1, 1, overlap);
    long long skip = cjpeg_part_bits(overlap, 0, gray, tables);
    free(overlap);
    /* The bottom's coded data unstuffed, ones past its end (libjpeg pads with ones too). */
    long bytes = (long)((total_bits + 7) / 8), whole = (long)(first_bits / 8);
    unsigned char *b = malloc((size_t)(bottom_size + 2)), *joined = malloc((size_t)bytes + 1);
    if (!b || !joined) { free(b); free(joined); snprintf(message, (size_t)message_len, "out of memory"); return -1; }
    long bn = 0;
    for (long i = bs; i < bottom_size - 2;) {
        const unsigned char *ff = memchr(bottom + i, 0xFF, (size_t)(bottom_size - 2 - i));
        long run = ff ? (long)(ff - (bottom + i)) + 1 : bottom_size - 2 - i;
        memcpy(b + bn, bottom + i, (size_t)run);
        bn += run;
        i += run + (ff ? 1 : 0);  /* past the zero stuffed after 0xFF */
    }
    b[bn] = b[bn + 1] = 0xFF;
    /* The top's whole bytes, still stuffed, are copied as they are: find where they end. */
    long tn = 0, te = ts;
    while (tn < whole && te < top_size - 2) { if (top[te] == 0xFF) te++; te++; tn++; }
    int used = (int)(first_bits % 8);
    if (bn != (skip + total_bits - first_bits + 7) / 8 || tn != whole || (used && te >= top_size - 2)) {
        free(b); free(joined);
        snprintf(message, (size_t)message_len, "internal: the parts' coded data is not the length counted");
        return -1;
    }
    /* Output bit 8·o + k is the bottom's bit 8·o + k + shift (from the top's end on). */
    long long shift = skip - first_bits;
    for (long o = whole; o < bytes; o++) {
        long long pos = 8LL * o + shift;
        long j = (long)(pos >> 3);
        int r = (int)(pos & 7);
        unsigned int hi = j >= 0 ? b[j] : 0, lo = j + 1 >= 0 ? b[j + 1] : 0;
        joined[o] = (unsigned char)(r ? (hi << r | lo >> (8 - r)) : hi);
    }
    if (used) joined[whole] = (unsigned char)((top[te] & ~(0xFFu >> used)) | (joined[whole] & (0xFFu >> used)));
    free(b);
    long stuffed = 0;
    for (long o = whole; o < bytes; o++) stuffed += joined[o] == 0xFF;
    long size = te + (bytes - whole) + stuffed + 2;
    unsigned char *file = malloc((size_t)size);
    if (!file) { free(joined); snprintf(message, (size_t)message_len, "out of memory"); return -1; }
    memcpy(file, top, (size_t)te);
    file[height_at] = (unsigned char)(height >> 8);
    file[height_at + 1] = (unsigned char)height;
    long n = te;
    for (long o = whole; o < bytes;) {
        const unsigned char *ff = memchr(joined + o, 0xFF, (size_t)(bytes - o));
        long run = ff ? (long)(ff - (joined + o)) + 1 : bytes - o;
        memcpy(file + n, joined + o, (size_t)run);
        n += run;
        o += run;
        if (ff) file[n++] = 0;
    }
    file[n++] = 0xFF;
    file[n++] = 0xD9;
    free(joined);
    *out = file;
    return n;
}
#endif
