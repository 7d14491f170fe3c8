/* Measuring a baseline JPEG's size without writing it (part of shim.h: included from it, after the
   writer it shares). */
#ifndef CJPEG_MEASURE_H
#define CJPEG_MEASURE_H
#if defined(__x86_64__)
#include <immintrin.h>
#endif

/* jpeg_gen_optimal_table and jpeg_fdct_islow: libjpeg's own, declared in shim.h before its table. */

/* ---- A baseline encode's size without writing it: libjpeg quantizes as for the real file, and
   its entropy coder is replaced by a count of the Huffman symbols, the statistics its optimizing
   pass gathers (jchuff.c's htest_one_block, the same counts) taken 64 bits of zero/non-zero at a
   time. From them: the optimal tables (libjpeg's jpeg_gen_optimal_table) and the exact length of
   the coded data; only the zero bytes stuffed after each 0xFF it would write are not known. ---- */

typedef struct {
    struct jpeg_destination_mgr pub;  /* discards what libjpeg writes, counting it */
    long long written;
    long long headers;                /* bytes before the first MCU's, -1 until then */
    long freq[4][257];                /* symbol counts: DC 0, AC 0, DC 1, AC 1 */
    long long magnitude_bits;         /* the value bits after every symbol */
    int last_dc[MAX_COMPS_IN_SCAN];
    JOCTET buf[4096];
} cjpeg_gather;

static void cjpeg_gather_init(j_compress_ptr c) {
    cjpeg_gather *g = (cjpeg_gather *)c->dest;
    g->pub.next_output_byte = g->buf;
    g->pub.free_in_buffer = sizeof(g->buf);
}

static boolean cjpeg_gather_empty(j_compress_ptr c) {
    cjpeg_gather *g = (cjpeg_gather *)c->dest;
    g->written += (long long)sizeof(g->buf);
    cjpeg_gather_init(c);
    return TRUE;
}

static void cjpeg_gather_term(j_compress_ptr c) { (void)c; }

/* The zig-zag bits of every byte of a natural-order mask (8 tables of 256: the mask is permuted a byte
   at a time), from libjpeg's own jpeg_natural_order. */
static unsigned long long cjpeg_zigzag_bits[8][256] = {{0}};
/* jpeg_natural_order copied beside them: read per coefficient, it would go through libjpeg's table. */
static int cjpeg_natural[64] = {0};
static pthread_once_t cjpeg_zigzag_once = PTHREAD_ONCE_INIT;

static void cjpeg_zigzag_build(void) {
    unsigned char zigzag_of[64];  /* natural position → zig-zag position */
    const int *natural = jpeg_natural_order;
    for (int k = 0; k < 64; k++) { cjpeg_natural[k] = natural[k]; zigzag_of[natural[k]] = (unsigned char)k; }
    for (int i = 0; i < 8; i++)
        for (int v = 0; v < 256; v++) {
            unsigned long long m = 0;
            for (int b = 0; b < 8; b++)
                if (v & (1 << b)) m |= 1ULL << zigzag_of[8 * i + b];
            cjpeg_zigzag_bits[i][v] = m;
        }
}

/* Bit k of the result is set when coefficient jpeg_natural_order[k] (zig-zag position k) is non-zero:
   the natural-order mask 16 coefficients at a time, then permuted by table (a bit at a time was
   55 % of the count). */
static inline unsigned long long cjpeg_zigzag_nonzero(const JCOEF *b) {
    unsigned long long natural = 0;
#if defined(__SSE2__)
    const __m128i zero = _mm_setzero_si128();
    for (int i = 0; i < 64; i += 16) {
        __m128i lo = _mm_cmpeq_epi16(_mm_loadu_si128((const __m128i *)(b + i)), zero);
        __m128i hi = _mm_cmpeq_epi16(_mm_loadu_si128((const __m128i *)(b + i + 8)), zero);
        unsigned m = (unsigned)_mm_movemask_epi8(_mm_packs_epi16(lo, hi)) ^ 0xFFFFu;
        natural |= (unsigned long long)m << i;
    }
#else
    for (int i = 0; i < 64; i++) natural |= (unsigned long long)(b[i] != 0) << i;
#endif
    unsigned long long m = 0;
    for (int i = 0; i < 8; i++) m |= cjpeg_zigzag_bits[i][(natural >> (8 * i)) & 0xFF];
    return m;
}

/* The bits of a magnitude category: 0 for 0, else the position of the highest set bit plus one. */
static inline int cjpeg_nbits(int v) {
    unsigned a = (unsigned)(v < 0 ? -v : v);
    return a ? 32 - __builtin_clz(a) : 0;
}

/* Counts one quantized block's symbols into a DC and an AC table and the value bits after them:
   `coef` its coefficients, signed or as magnitudes (only the AC ones are read), `dc` its signed DC. */
static inline void cjpeg_count_block(long *dcf, long *acf, long long *bits, int *last_dc, int dc, const JCOEF *coef) {
    int nbits = cjpeg_nbits(dc - *last_dc);
    *last_dc = dc;
    dcf[nbits]++;
    *bits += nbits;
    unsigned long long m = cjpeg_zigzag_nonzero(coef) & ~1ULL;
    int last = 0;
    while (m) {
        int k = __builtin_ctzll(m);
        m &= m - 1;
        int r = k - last - 1;
        while (r > 15) { acf[0xF0]++; r -= 16; }
        int n = cjpeg_nbits(coef[cjpeg_natural[k]]);
        acf[(r << 4) + n]++;
        *bits += n;
        last = k;
    }
    if (last < 63) acf[0]++;
}

static boolean cjpeg_gather_mcu(j_compress_ptr c, JBLOCKROW *data) {
    cjpeg_gather *g = (cjpeg_gather *)c->dest;
    if (g->headers < 0) g->headers = g->written + (long long)(sizeof(g->buf) - g->pub.free_in_buffer);
    for (int blkn = 0; blkn < c->blocks_in_MCU; blkn++) {
        int ci = c->MCU_membership[blkn];
        jpeg_component_info *comp = c->cur_comp_info[ci];
        const JCOEF *b = data[blkn][0];
        cjpeg_count_block(g->freq[comp->dc_tbl_no * 2], g->freq[comp->ac_tbl_no * 2 + 1], &g->magnitude_bits, &g->last_dc[ci], b[0], b);
    }
    return TRUE;
}

/* DHT bytes libjpeg writes for one table: marker, length, index, 16 counts, the symbols. */
static inline long long cjpeg_dht_bytes(const UINT8 bits[17]) {
    long long n = 2 + 2 + 1 + 16;
    for (int i = 1; i <= 16; i++) n += bits[i];
    return n;
}

/* The coded length of the symbols counted in `freq` (257 counts a table: DC 0, AC 0, then DC 1,
   AC 1 when `used` is 4) under `tables` (huffval lists the symbols by length, bits[l] of length l). */
static inline long long cjpeg_symbol_bits(const long *freq, int used, const cjpeg_tables *tables) {
    long long n = 0;
    for (int t = 0; t < used; t++) {
        int s = 0;
        for (int len = 1; len <= 16; len++)
            for (int i = 0; i < tables->bits[t][len]; i++, s++) n += (long long)len * freq[257 * t + tables->huffval[t][s]];
    }
    return n;
}

/* libjpeg's jpeg_gen_optimal_table as libjpeg-turbo 3 computes it: the two smallest counts found
   in one pass over the symbols in use (ties go to the larger symbol, as in the two full scans of
   every merge that 2.1 makes), then lengths over 16 bits folded and the symbols listed by length,
   so the same table. 2.1's took 4–13 µs a table (2000×1250 at q69: 8–43 symbols), four a measure.
   Returns -1 where libjpeg fails (a code longer than 32 bits). */
static inline int cjpeg_optimal_table(const long counts[257], unsigned char bits_out[17], unsigned char huffval[256]) {
    enum { MAX_CLEN = 32 };
    unsigned char bits[MAX_CLEN + 2];
    int bit_pos[MAX_CLEN + 1], codesize[257], symbol[257], others[257], n = 0;
    long freq[257];
    memset(bits, 0, sizeof(bits));
    for (int i = 0; i < 257; i++) {
        long c = i == 256 ? 1 : counts[i];  /* a pseudo-symbol, so no real code is all ones */
        if (c) { symbol[n] = i; freq[n] = c; codesize[n] = 0; others[n] = -1; n++; }
    }
    for (;;) {
        int c1 = -1, c2 = -1;
        long v = 1000000000L, v2 = 1000000000L;
        for (int i = 0; i < n; i++) {
            if (freq[i] <= v2) {
                if (freq[i] <= v) { c2 = c1; v2 = v; v = freq[i]; c1 = i; }
                else { v2 = freq[i]; c2 = i; }
            }
        }
        if (c2 < 0) break;
        freq[c1] += freq[c2];
        freq[c2] = 1000000001L;
        codesize[c1]++;
        while (others[c1] >= 0) { c1 = others[c1]; codesize[c1]++; }
        others[c1] = c2;
        codesize[c2]++;
        while (others[c2] >= 0) { c2 = others[c2]; codesize[c2]++; }
    }
    for (int i = 0; i < n; i++) {
        if (codesize[i] > MAX_CLEN) return -1;
        bits[codesize[i]]++;
    }
    int p = 0, i;
    for (i = 1; i <= MAX_CLEN; i++) { bit_pos[i] = p; p += bits[i]; }
    for (i = MAX_CLEN; i > 16; i--) {
        while (bits[i] > 0) {
            int j = i - 2;
            while (bits[j] == 0) j--;
            bits[i] -= 2; bits[i - 1]++; bits[j + 1] += 2; bits[j]--;
        }
    }
    while (bits[i] == 0) i--;
    bits[i]--;  /* the pseudo-symbol's code, the longest */
    memcpy(bits_out, bits, 17);
    for (int k = 0; k < n - 1; k++) huffval[bit_pos[codesize[k]]++] = (unsigned char)symbol[k];
    return 0;
}

/* Tests: 1 when cjpeg_optimal_table and libjpeg's jpeg_gen_optimal_table build the same table from
   `counts` (257), 0 when not, -1 when libjpeg fails on them. Both tables in table 0 of the outputs. */
static inline int cjpeg_optimal_table_check(const long counts[257], cjpeg_tables *ours, cjpeg_tables *theirs) {
    cjpeg_writer w;
    cjpeg_writer_open(&w);
    if (setjmp(w.err.jump)) { jpeg_destroy_compress(&w.c); free(w.buffer); return -1; }
    JHUFF_TBL h;
    memset(&h, 0, sizeof(h));
    long f[257];
    memcpy(f, counts, sizeof(f));
    jpeg_gen_optimal_table(&w.c, &h, f);
    jpeg_destroy_compress(&w.c);
    free(w.buffer);
    memset(ours, 0, sizeof(*ours));
    memset(theirs, 0, sizeof(*theirs));
    memcpy(theirs->bits[0], h.bits, 17);
    if (cjpeg_optimal_table(counts, ours->bits[0], ours->huffval[0]) != 0) return 0;
    int n = 0;
    for (int l = 1; l <= 16; l++) n += h.bits[l];
    memcpy(theirs->huffval[0], h.huffval, (size_t)n);
    return memcmp(ours, theirs, sizeof(*ours)) == 0;
}

/* Quantizes the planes at `quality` as cjpeg_encode_planes would and measures the baseline file it
   would write with optimized tables: *lower = every byte but the stuffed zeros, *data = the coded
   data's bytes, `tables` = those optimized tables. 0, or -1 with a message. */
static inline int cjpeg_measure_planes(const unsigned char *const planes[3], const int strides[3], int width, int height, int gray,
                                       int full_chroma, int quality, cjpeg_tables *tables, long long *lower, long long *data,
                                       char *message, int message_len) {
    cjpeg_writer w;
    unsigned char *tmp = NULL;
    cjpeg_gather *g = calloc(1, sizeof(cjpeg_gather));
    if (!g) { snprintf(message, (size_t)message_len, "out of memory"); return -1; }
    cjpeg_writer_open(&w);
    if (setjmp(w.err.jump)) { free(tmp); free(g); return (int)cjpeg_writer_fail(&w, message, message_len); }
    cjpeg_writer_defaults(&w, width, height, JCS_EXT_RGB, 3, gray, full_chroma, quality, 0);
    w.c.raw_data_in = TRUE;
    w.c.optimize_coding = FALSE;
    g->pub.init_destination = cjpeg_gather_init;
    g->pub.empty_output_buffer = cjpeg_gather_empty;
    g->pub.term_destination = cjpeg_gather_term;
    w.c.dest = &g->pub;
    g->headers = -1;
    pthread_once(&cjpeg_zigzag_once, cjpeg_zigzag_build);
    jpeg_start_compress(&w.c, TRUE);  /* markers up to SOS follow at the first rows, with the standard tables */
    if (w.c.restart_interval != 0 || w.c.comps_in_scan != w.c.num_components) {
        snprintf(w.err.message, sizeof(w.err.message), "internal: measuring needs one interleaved scan");
        free(g);
        return (int)cjpeg_writer_fail(&w, message, message_len);
    }
    w.c.entropy->encode_mcu = cjpeg_gather_mcu;
    if (cjpeg_feed_planes(&w, planes, strides, width, height, &tmp) != 0) { free(tmp); free(g); return (int)cjpeg_writer_fail(&w, message, message_len); }
    free(tmp);
    tmp = NULL;
    int used = gray ? 2 : 4;
    long long bits = g->magnitude_bits, headers = g->headers;
    memset(tables, 0, sizeof(*tables));
    for (int t = 0; t < used; t++) {
        JHUFF_TBL *h = cjpeg_table_slot(&w.c, t);
        headers -= cjpeg_dht_bytes(h->bits);
        if (cjpeg_optimal_table(g->freq[t], h->bits, h->huffval) != 0) {
            snprintf(w.err.message, sizeof(w.err.message), "Huffman code length overflow");
            free(g);
            return (int)cjpeg_writer_fail(&w, message, message_len);
        }
        headers += cjpeg_dht_bytes(h->bits);
        memcpy(tables->bits[t], h->bits, sizeof(h->bits));
        memcpy(tables->huffval[t], h->huffval, sizeof(h->huffval));
    }
    bits += cjpeg_symbol_bits(&g->freq[0][0], used, tables);
    jpeg_abort_compress(&w.c);
    jpeg_destroy_compress(&w.c);
    free(w.buffer);  /* jpeg_mem_dest's first buffer, never written to */
    free(g);
    *data = (bits + 7) / 8;
    *lower = headers + *data + 2;  /* EOI */
    return 0;
}

/* ---- Several qualities of one image measured in one pass: each block's forward DCT is done once
   (libjpeg's accurate integer DCT, the same integers as its jpeg_fdct_islow), then quantized for
   every quality as libjpeg-turbo quantizes (its reciprocal, rounding correction and shift), and
   the Huffman symbols counted as cjpeg_gather_mcu counts them. A range of MCU rows at a time, so
   two threads can share an image; cjpeg_multi_finish joins the ranges. ---- */

#define CJPEG_MULTI_MAX 4

/* One quality's divisors in natural order, for table 0 (luma) and 1 (chroma): libjpeg-turbo's
   compute_reciprocal for 16-bit DCT elements, of 8 × the quantization value (ISLOW's scale). A
   magnitude quantizes to (|x| + corr) × recip >> shift, which its SIMD quantizer computes as two
   high halves of 16-bit products, the second by scale = 2^(32 − shift). */
typedef struct {
    unsigned short recip[2][64], corr[2][64], scale[2][64];
    unsigned char shift[2][64];
} cjpeg_divisors;

/* What one range of MCU rows counted, per quality. */
typedef struct {
    long freq[CJPEG_MULTI_MAX][4][257];
    long long magnitude_bits[CJPEG_MULTI_MAX];
    int first_dc[CJPEG_MULTI_MAX][3], last_dc[CJPEG_MULTI_MAX][3];
} cjpeg_multi_part;

/* libjpeg-turbo's compute_reciprocal (jcdctmgr.c) for a divisor of at least 8 (ISLOW's), so the
   shift is 18–26 and the scale fits 16 bits. */
static inline void cjpeg_reciprocal(unsigned int divisor, unsigned short *recip, unsigned short *corr, unsigned short *scale,
                                    unsigned char *shift) {
    int b = 31 - __builtin_clz(divisor);
    int r = 16 + b;
    unsigned long long fq = (1ULL << r) / divisor, fr = (1ULL << r) % divisor;
    unsigned int c = divisor / 2;
    if (fr == 0) { fq >>= 1; r--; }
    else if (fr <= divisor / 2U) c++;
    else fq++;
    *recip = (unsigned short)fq;
    *corr = (unsigned short)c;
    *scale = (unsigned short)(1U << (32 - r));
    *shift = (unsigned char)r;
}

/* Every quality's divisors, table[q] for q in 1...100, from one compressor (0.1 ms; one set up for
   each measure was 20 µs of it): the caller keeps them for the process. The same for gray
   (jpeg_set_quality sets both tables). 0, or -1 with a message. */
static inline int cjpeg_divisor_table(cjpeg_divisors table[101], char *message, int message_len) {
    cjpeg_writer w;
    cjpeg_writer_open(&w);
    if (setjmp(w.err.jump)) return (int)cjpeg_writer_fail(&w, message, message_len);
    cjpeg_writer_defaults(&w, 16, 16, JCS_EXT_RGB, 3, 0, 0, 75, 0);
    memset(table, 0, sizeof(cjpeg_divisors) * 101);
    for (int quality = 1; quality <= 100; quality++) {
        jpeg_set_quality(&w.c, quality, TRUE);
        cjpeg_divisors *d = &table[quality];
        for (int t = 0; t < 2; t++) {
            JQUANT_TBL *q = w.c.quant_tbl_ptrs[t];
            for (int i = 0; i < 64; i++)
                cjpeg_reciprocal((q ? q->quantval[i] : 1) << 3, &d->recip[t][i], &d->corr[t][i], &d->scale[t][i], &d->shift[t][i]);
        }
    }
    jpeg_destroy_compress(&w.c);
    free(w.buffer);
    return 0;
}

/* ISLOW's constants at CONST_BITS 13 (jfdctint.c). */
enum { CJ_F0298 = 2446, CJ_F0390 = 3196, CJ_F0541 = 4433, CJ_F0765 = 6270, CJ_F0899 = 7373, CJ_F1175 = 9633,
       CJ_F1501 = 12299, CJ_F1847 = 15137, CJ_F1961 = 16069, CJ_F2053 = 16819, CJ_F2562 = 20995, CJ_F3072 = 25172 };

/* Up to two blocks at a time: each 256-bit vector holds a line of block A in its low half and the
   same line of block B in its high half, 16-bit elements, so the 8×8 transposes (unpacks within
   halves) and the DCT's pair products (madd: a·c1 + b·c2, libjpeg-turbo's own rearrangement of
   the products, the same integers) serve both. */
#if defined(__x86_64__)
__attribute__((target("avx2")))
static inline void cjpeg_transpose8x16_avx2(__m256i v[8]) {
    __m256i a0 = _mm256_unpacklo_epi16(v[0], v[1]), a1 = _mm256_unpackhi_epi16(v[0], v[1]);
    __m256i a2 = _mm256_unpacklo_epi16(v[2], v[3]), a3 = _mm256_unpackhi_epi16(v[2], v[3]);
    __m256i a4 = _mm256_unpacklo_epi16(v[4], v[5]), a5 = _mm256_unpackhi_epi16(v[4], v[5]);
    __m256i a6 = _mm256_unpacklo_epi16(v[6], v[7]), a7 = _mm256_unpackhi_epi16(v[6], v[7]);
    __m256i b0 = _mm256_unpacklo_epi32(a0, a2), b1 = _mm256_unpackhi_epi32(a0, a2);
    __m256i b2 = _mm256_unpacklo_epi32(a1, a3), b3 = _mm256_unpackhi_epi32(a1, a3);
    __m256i b4 = _mm256_unpacklo_epi32(a4, a6), b5 = _mm256_unpackhi_epi32(a4, a6);
    __m256i b6 = _mm256_unpacklo_epi32(a5, a7), b7 = _mm256_unpackhi_epi32(a5, a7);
    v[0] = _mm256_unpacklo_epi64(b0, b4); v[1] = _mm256_unpackhi_epi64(b0, b4);
    v[2] = _mm256_unpacklo_epi64(b1, b5); v[3] = _mm256_unpackhi_epi64(b1, b5);
    v[4] = _mm256_unpacklo_epi64(b2, b6); v[5] = _mm256_unpackhi_epi64(b2, b6);
    v[6] = _mm256_unpacklo_epi64(b3, b7); v[7] = _mm256_unpackhi_epi64(b3, b7);
}

/* (a·c1 + b·c2 + round) >> shift for the pairs of a and b, packed back to 16 bits. */
__attribute__((target("avx2")))
static inline __m256i cjpeg_pair_descale(__m256i lo, __m256i hi, int shift) {
    return _mm256_packs_epi32(_mm256_srai_epi32(lo, shift), _mm256_srai_epi32(hi, shift));
}

#define CJ_PAIR(c1, c2) _mm256_set1_epi32((int)(((unsigned)(c2) << 16) | ((unsigned)(c1) & 0xFFFF)))

/* One pass of the 1-D DCT over the vectors (element k of every line in v[k]); `second` is the
   column pass, which descales the even part by PASS1_BITS and the rest by CONST_BITS + PASS1_BITS. */
__attribute__((target("avx2")))
static inline void cjpeg_dct_pass16_avx2(__m256i v[8], int second) {
    const int shift = second ? 13 + 2 : 13 - 2;
    const __m256i round = _mm256_set1_epi32(1 << (shift - 1));
    __m256i tmp0 = _mm256_add_epi16(v[0], v[7]), tmp7 = _mm256_sub_epi16(v[0], v[7]);
    __m256i tmp1 = _mm256_add_epi16(v[1], v[6]), tmp6 = _mm256_sub_epi16(v[1], v[6]);
    __m256i tmp2 = _mm256_add_epi16(v[2], v[5]), tmp5 = _mm256_sub_epi16(v[2], v[5]);
    __m256i tmp3 = _mm256_add_epi16(v[3], v[4]), tmp4 = _mm256_sub_epi16(v[3], v[4]);
    __m256i tmp10 = _mm256_add_epi16(tmp0, tmp3), tmp13 = _mm256_sub_epi16(tmp0, tmp3);
    __m256i tmp11 = _mm256_add_epi16(tmp1, tmp2), tmp12 = _mm256_sub_epi16(tmp1, tmp2);
    if (second) {
        const __m256i r2 = _mm256_set1_epi16(1 << 1);
        v[0] = _mm256_srai_epi16(_mm256_add_epi16(_mm256_add_epi16(tmp10, tmp11), r2), 2);
        v[4] = _mm256_srai_epi16(_mm256_add_epi16(_mm256_sub_epi16(tmp10, tmp11), r2), 2);
    } else {
        v[0] = _mm256_slli_epi16(_mm256_add_epi16(tmp10, tmp11), 2);
        v[4] = _mm256_slli_epi16(_mm256_sub_epi16(tmp10, tmp11), 2);
    }
    /* data2 = tmp13·(F0541 + F0765) + tmp12·F0541; data6 = tmp13·F0541 + tmp12·(F0541 − F1847) */
    __m256i l = _mm256_unpacklo_epi16(tmp13, tmp12), h = _mm256_unpackhi_epi16(tmp13, tmp12);
    const __m256i c2a = CJ_PAIR(CJ_F0541 + CJ_F0765, CJ_F0541), c6a = CJ_PAIR(CJ_F0541, CJ_F0541 - CJ_F1847);
    v[2] = cjpeg_pair_descale(_mm256_add_epi32(_mm256_madd_epi16(l, c2a), round), _mm256_add_epi32(_mm256_madd_epi16(h, c2a), round), shift);
    v[6] = cjpeg_pair_descale(_mm256_add_epi32(_mm256_madd_epi16(l, c6a), round), _mm256_add_epi32(_mm256_madd_epi16(h, c6a), round), shift);
    /* z3 = z3·(F1175 − F1961) + z4·F1175; z4 = z3·F1175 + z4·(F1175 − F0390), both with the rounding */
    __m256i z3 = _mm256_add_epi16(tmp4, tmp6), z4 = _mm256_add_epi16(tmp5, tmp7);
    l = _mm256_unpacklo_epi16(z3, z4); h = _mm256_unpackhi_epi16(z3, z4);
    const __m256i cz3 = CJ_PAIR(CJ_F1175 - CJ_F1961, CJ_F1175), cz4 = CJ_PAIR(CJ_F1175, CJ_F1175 - CJ_F0390);
    __m256i z3l = _mm256_add_epi32(_mm256_madd_epi16(l, cz3), round), z3h = _mm256_add_epi32(_mm256_madd_epi16(h, cz3), round);
    __m256i z4l = _mm256_add_epi32(_mm256_madd_epi16(l, cz4), round), z4h = _mm256_add_epi32(_mm256_madd_epi16(h, cz4), round);
    /* data7 = tmp4·(F0298 − F0899) + tmp7·(−F0899) + z3; data1 = tmp4·(−F0899) + tmp7·(F1501 − F0899) + z4 */
    l = _mm256_unpacklo_epi16(tmp4, tmp7); h = _mm256_unpackhi_epi16(tmp4, tmp7);
    const __m256i c7 = CJ_PAIR(CJ_F0298 - CJ_F0899, -CJ_F0899), c1 = CJ_PAIR(-CJ_F0899, CJ_F1501 - CJ_F0899);
    v[7] = cjpeg_pair_descale(_mm256_add_epi32(_mm256_madd_epi16(l, c7), z3l), _mm256_add_epi32(_mm256_madd_epi16(h, c7), z3h), shift);
    v[1] = cjpeg_pair_descale(_mm256_add_epi32(_mm256_madd_epi16(l, c1), z4l), _mm256_add_epi32(_mm256_madd_epi16(h, c1), z4h), shift);
    /* data5 = tmp5·(F2053 − F2562) + tmp6·(−F2562) + z4; data3 = tmp5·(−F2562) + tmp6·(F3072 − F2562) + z3 */
    l = _mm256_unpacklo_epi16(tmp5, tmp6); h = _mm256_unpackhi_epi16(tmp5, tmp6);
    const __m256i c5 = CJ_PAIR(CJ_F2053 - CJ_F2562, -CJ_F2562), c3 = CJ_PAIR(-CJ_F2562, CJ_F3072 - CJ_F2562);
    v[5] = cjpeg_pair_descale(_mm256_add_epi32(_mm256_madd_epi16(l, c5), z4l), _mm256_add_epi32(_mm256_madd_epi16(h, c5), z4h), shift);
    v[3] = cjpeg_pair_descale(_mm256_add_epi32(_mm256_madd_epi16(l, c3), z3l), _mm256_add_epi32(_mm256_madd_epi16(h, c3), z3h), shift);
}
#undef CJ_PAIR

/* The DCT of blocks A (rows a[0..7], 8 bytes each) and B into out[u]: coefficient row u of A in the
   low half, of B in the high half (natural order, ISLOW's output, scaled by 8). */
__attribute__((target("avx2")))
static inline void cjpeg_fdct2_avx2(const unsigned char *const a[8], const unsigned char *const b[8], __m256i out[8]) {
    const __m256i center = _mm256_set1_epi16(128);
    for (int r = 0; r < 8; r++) {
        __m128i ab = _mm_unpacklo_epi64(_mm_loadl_epi64((const __m128i *)a[r]), _mm_loadl_epi64((const __m128i *)b[r]));
        out[r] = _mm256_sub_epi16(_mm256_cvtepu8_epi16(ab), center);
    }
    cjpeg_transpose8x16_avx2(out);  /* element k of every row */
    cjpeg_dct_pass16_avx2(out, 0);
    cjpeg_transpose8x16_avx2(out);  /* row r */
    cjpeg_dct_pass16_avx2(out, 1);
}

/* The pair's coefficients stored block by block (tests). */
__attribute__((target("avx2")))
static inline void cjpeg_dct_store_avx2(const unsigned char *const a[8], const unsigned char *const b[8], short oa[64], short ob[64]) {
    __m256i coef[8];
    cjpeg_fdct2_avx2(a, b, coef);
    for (int u = 0; u < 8; u++) {
        _mm_storeu_si128((__m128i *)(oa + 8 * u), _mm256_castsi256_si128(coef[u]));
        _mm_storeu_si128((__m128i *)(ob + 8 * u), _mm256_extracti128_si256(coef[u], 1));
    }
}

/* Quantizes the pair at `d` (tables ta, tb) as libjpeg-turbo's SIMD quantizer does, into magnitudes
   ma and mb (natural order); the signed DCs in *dca, *dcb. */
__attribute__((target("avx2")))
static inline void cjpeg_quantize2_avx2(const __m256i coef[8], const cjpeg_divisors *d, int ta, int tb, short ma[64], short mb[64],
                                        int *dca, int *dcb) {
    for (int u = 0; u < 8; u++) {
#define CJ_HALVES(x) _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(x[ta] + 8 * u))), \
                                             _mm_loadu_si128((const __m128i *)(x[tb] + 8 * u)), 1)
        __m256i m = _mm256_add_epi16(_mm256_abs_epi16(coef[u]), CJ_HALVES(d->corr));
        m = _mm256_mulhi_epu16(_mm256_mulhi_epu16(m, CJ_HALVES(d->recip)), CJ_HALVES(d->scale));
#undef CJ_HALVES
        _mm_storeu_si128((__m128i *)(ma + 8 * u), _mm256_castsi256_si128(m));
        _mm_storeu_si128((__m128i *)(mb + 8 * u), _mm256_extracti128_si256(m, 1));
    }
    short a0 = (short)_mm256_extract_epi16(coef[0], 0), b0 = (short)_mm256_extract_epi16(coef[0], 8);
    *dca = a0 < 0 ? -ma[0] : ma[0];
    *dcb = b0 < 0 ? -mb[0] : mb[0];
}
#endif

/* One block with libjpeg's own C DCT (16-bit elements in libjpeg-turbo's SIMD builds) and its C
   quantizer's arithmetic, where AVX2 is missing. */
static inline void cjpeg_fdct_c(const unsigned char *const rows[8], short coef[64]) {
    for (int r = 0; r < 8; r++)
        for (int c = 0; c < 8; c++) coef[8 * r + c] = (short)((int)rows[r][c] - 128);
    jpeg_fdct_islow(coef);
}

static inline void cjpeg_quantize_c(const short coef[64], const cjpeg_divisors *d, int t, short mag[64], int *dc) {
    for (int i = 0; i < 64; i++) {
        unsigned int a = (unsigned int)(coef[i] < 0 ? -coef[i] : coef[i]);
        mag[i] = (short)((a + d->corr[t][i]) * (unsigned int)d->recip[t][i] >> d->shift[t][i]);
    }
    *dc = coef[0] < 0 ? -mag[0] : mag[0];
}

static inline int cjpeg_has_avx2(void) {
#if defined(__x86_64__)
    return __builtin_cpu_supports("avx2") ? 1 : 0;  /* read from what the runtime set up at start */
#else
    return 0;
#endif
}

/* The geometry cjpeg_feed_planes and libjpeg's coefficient controller give the planes. */
typedef struct {
    int components, maxh, maxv, mcus_per_row, mcu_rows;
    int h[3], v[3], wb[3], hb[3], pw[3], ph[3];
} cjpeg_layout;

static inline void cjpeg_layout_of(int width, int height, int gray, int full_chroma, cjpeg_layout *l) {
    l->components = gray ? 1 : 3;
    l->maxh = l->maxv = gray || full_chroma ? 1 : 2;
    for (int i = 0; i < l->components; i++) {
        l->h[i] = l->v[i] = i == 0 ? l->maxh : 1;
        l->wb[i] = (width * l->h[i] + 8 * l->maxh - 1) / (8 * l->maxh);
        l->hb[i] = (height * l->v[i] + 8 * l->maxv - 1) / (8 * l->maxv);
        l->pw[i] = (width + l->maxh - 1) / l->maxh * l->maxh * l->h[i] / l->maxh;
        l->ph[i] = (height + l->maxv - 1) / l->maxv * l->maxv * l->v[i] / l->maxv;
    }
    l->mcus_per_row = (width + 8 * l->maxh - 1) / (8 * l->maxh);
    l->mcu_rows = (height + 8 * l->maxv - 1) / (8 * l->maxv);
}

/* A real block waiting for its DCT: its component and rows (into the plane, or an edge copy). */
typedef struct {
    int ci;
    const unsigned char *rows[8];
    unsigned char edge[8][8];
} cjpeg_pending_block;

/* Counts `n` (1 or 2) pending blocks, in order, for every quality. */
static inline __attribute__((always_inline)) void cjpeg_multi_blocks(int avx2, cjpeg_pending_block *blocks, int n,
                                                                     const cjpeg_divisors *divisors, int count,
                                                                     cjpeg_multi_part *part, int started[3]) {
    short mag[2][64];
    int dc[2];
#if defined(__x86_64__)
    if (avx2) {
        __m256i coef[8];
        cjpeg_fdct2_avx2(blocks[0].rows, blocks[n - 1].rows, coef);
        int first[2] = {0, 0};  /* the range's first block of its component */
        for (int i = 0; i < n; i++) { first[i] = !started[blocks[i].ci]; started[blocks[i].ci] = 1; }
        for (int q = 0; q < count; q++) {
            cjpeg_quantize2_avx2(coef, &divisors[q], blocks[0].ci ? 1 : 0, blocks[n - 1].ci ? 1 : 0, mag[0], mag[1], &dc[0], &dc[1]);
            for (int i = 0; i < n; i++) {
                int ci = blocks[i].ci, t = ci ? 1 : 0;
                if (first[i]) part->first_dc[q][ci] = dc[i];
                cjpeg_count_block(part->freq[q][2 * t], part->freq[q][2 * t + 1], &part->magnitude_bits[q], &part->last_dc[q][ci], dc[i], mag[i]);
            }
        }
        return;
    }
#endif
    for (int i = 0; i < n; i++) {
        short coef[64];
        int ci = blocks[i].ci, t = ci ? 1 : 0;
        cjpeg_fdct_c(blocks[i].rows, coef);
        for (int q = 0; q < count; q++) {
            cjpeg_quantize_c(coef, &divisors[q], t, mag[0], &dc[0]);
            if (!started[ci]) part->first_dc[q][ci] = dc[0];
            cjpeg_count_block(part->freq[q][2 * t], part->freq[q][2 * t + 1], &part->magnitude_bits[q], &part->last_dc[q][ci], dc[0], mag[0]);
        }
        started[ci] = 1;
    }
}

/* Counts MCU rows [from, to) for `count` qualities into `part` (zeroed here), two blocks at a time in
   coding order; inlined into an AVX2 build and a plain one. A dummy block (past the image's blocks,
   filling an MCU) repeats the previous DC and ends at once: counted where it is met, it changes no
   predictor. */
static inline __attribute__((always_inline)) void cjpeg_multi_rows_impl(int avx2, const unsigned char *const planes[3], const int strides[3],
                                                                        int width, int height, int gray, int full_chroma,
                                                                        const cjpeg_divisors *divisors, int count, int from, int to,
                                                                        cjpeg_multi_part *part) {
    cjpeg_layout l;
    cjpeg_layout_of(width, height, gray, full_chroma, &l);
    memset(part, 0, sizeof(*part));
    pthread_once(&cjpeg_zigzag_once, cjpeg_zigzag_build);
    int started[3] = {0, 0, 0};
    cjpeg_pending_block blocks[2];
    int pending = 0;
    for (int mr = from; mr < to; mr++)
        for (int mc = 0; mc < l.mcus_per_row; mc++)
            for (int ci = 0; ci < l.components; ci++)
                for (int yi = 0; yi < l.v[ci]; yi++)
                    for (int xi = 0; xi < l.h[ci]; xi++) {
                        int br = mr * l.v[ci] + yi, bc = mc * l.h[ci] + xi, t = ci ? 1 : 0;
                        if (br >= l.hb[ci] || bc >= l.wb[ci]) {
                            for (int q = 0; q < count; q++) { part->freq[q][2 * t][0]++; part->freq[q][2 * t + 1][0]++; }
                            continue;
                        }
                        cjpeg_pending_block *b = &blocks[pending];
                        b->ci = ci;
                        int x0 = bc * 8, y0 = br * 8, inside = x0 + 8 <= l.pw[ci] && y0 + 8 <= l.ph[ci];
                        for (int r = 0; r < 8; r++) {
                            int y = y0 + r < l.ph[ci] ? y0 + r : l.ph[ci] - 1;
                            const unsigned char *src = planes[ci] + (size_t)y * (size_t)strides[ci];
                            if (inside) { b->rows[r] = src + x0; continue; }
                            for (int c = 0; c < 8; c++) b->edge[r][c] = src[x0 + c < l.pw[ci] ? x0 + c : l.pw[ci] - 1];
                            b->rows[r] = b->edge[r];
                        }
                        if (++pending == 2) {
                            cjpeg_multi_blocks(avx2, blocks, 2, divisors, count, part, started);
                            pending = 0;
                        }
                    }
    if (pending) cjpeg_multi_blocks(avx2, blocks, 1, divisors, count, part, started);
}

/* The bytes of everything but the coded data with the optimal tables, less their DHT markers:
   the same for every size and quality (8-bit DQT: jpeg_set_quality forces baseline), so the caller
   keeps them (a whole small measure: 20 µs). */
static inline int cjpeg_frame_bytes(int gray, long long *out, char *message, int message_len) {
    unsigned char plane[16 * 16];
    memset(plane, 128, sizeof(plane));
    const unsigned char *planes[3] = { plane, plane, plane };
    const int strides[3] = { 16, 16, 16 };
    cjpeg_tables t;
    long long lower, data;
    if (cjpeg_measure_planes(planes, strides, 16, 16, gray, 0, 75, &t, &lower, &data, message, message_len) != 0) return -1;
    long long n = lower - data - 2;
    for (int i = 0; i < (gray ? 2 : 4); i++) n -= cjpeg_dht_bytes(t.bits[i]);
    *out = n;
    return 0;
}

/* The coded bits of one part's rows under `tables`, its first DCs counted from a predictor of 0:
   the exact length of those rows' data in a file that starts with them. */
static inline long long cjpeg_part_bits(const cjpeg_multi_part *part, int q, int gray, const cjpeg_tables *tables) {
    return part->magnitude_bits[q] + cjpeg_symbol_bits(&part->freq[q][0][0], gray ? 2 : 4, tables);
}

/* Joins the parts (in row order) for quality slot `q`: tables, *lower and *data as cjpeg_measure_planes
   gives them (`frame`: cjpeg_frame_bytes). */
static inline int cjpeg_multi_finish(cjpeg_multi_part *const *parts, int part_count, int q, int gray, long long frame,
                                     cjpeg_tables *tables, long long *lower, long long *data, long long *total_bits,
                                     long long *first_bits, char *message, int message_len) {
    long freq[4][257];
    memset(freq, 0, sizeof(freq));
    long long bits = 0;
    int components = gray ? 1 : 3;
    int last[3] = {0, 0, 0};
    for (int p = 0; p < part_count; p++) {
        const cjpeg_multi_part *part = parts[p];
        for (int t = 0; t < 4; t++)
            for (int s = 0; s < 257; s++) freq[t][s] += part->freq[q][t][s];
        bits += part->magnitude_bits[q];
        for (int ci = 0; ci < components && p > 0; ci++) {
            /* The part counted its first DC against 0; the real predictor is the previous part's last. */
            int t = ci == 0 ? 0 : 2, first = part->first_dc[q][ci];
            int wrong = cjpeg_nbits(first), right = cjpeg_nbits(first - last[ci]);
            freq[t][wrong]--; freq[t][right]++;
            bits += right - wrong;
        }
        for (int ci = 0; ci < components; ci++) last[ci] = part->last_dc[q][ci];
    }
    memset(tables, 0, sizeof(*tables));
    long long headers = frame;
    for (int t = 0; t < (gray ? 2 : 4); t++) {
        if (cjpeg_optimal_table(freq[t], tables->bits[t], tables->huffval[t]) != 0) {
            snprintf(message, (size_t)message_len, "Huffman code length overflow");
            return -1;
        }
        headers += cjpeg_dht_bytes(tables->bits[t]);
    }
    bits += cjpeg_symbol_bits(&freq[0][0], gray ? 2 : 4, tables);
    *data = (bits + 7) / 8;
    *lower = headers + *data + 2;
    *total_bits = bits;
    *first_bits = cjpeg_part_bits(parts[0], q, gray, tables);
    return 0;
}

#if defined(__x86_64__)
__attribute__((target("avx2")))
static void cjpeg_multi_rows_avx2(const unsigned char *const planes[3], const int strides[3], int width, int height, int gray,
                                  int full_chroma, const cjpeg_divisors *divisors, int count, int from, int to, cjpeg_multi_part *part) {
    cjpeg_multi_rows_impl(1, planes, strides, width, height, gray, full_chroma, divisors, count, from, to, part);
}
#endif

static void cjpeg_multi_rows_plain(const unsigned char *const planes[3], const int strides[3], int width, int height, int gray,
                                   int full_chroma, const cjpeg_divisors *divisors, int count, int from, int to, cjpeg_multi_part *part) {
    cjpeg_multi_rows_impl(0, planes, strides, width, height, gray, full_chroma, divisors, count, from, to, part);
}

/* Counts MCU rows [from, to) of the planes for `count` (≤ CJPEG_MULTI_MAX) qualities into `part`;
   `simd` 0 takes the plain path even where AVX2 is there (tests). */
static inline void cjpeg_multi_rows(const unsigned char *const planes[3], const int strides[3], int width, int height, int gray,
                                    int full_chroma, const cjpeg_divisors *divisors, int count, int from, int to, int simd,
                                    cjpeg_multi_part *part) {
#if defined(__x86_64__)
    if (simd && cjpeg_has_avx2()) { cjpeg_multi_rows_avx2(planes, strides, width, height, gray, full_chroma, divisors, count, from, to, part); return; }
#endif
    cjpeg_multi_rows_plain(planes, strides, width, height, gray, full_chroma, divisors, count, from, to, part);
}

/* 1 when the two-block DCT gives libjpeg's jpeg_fdct_islow integers for blocks a and b (64 bytes
   each, row by row), or when there is no AVX2 to check; 0 otherwise (tests). */
static inline int cjpeg_dct_agrees(const unsigned char *a, const unsigned char *b) {
#if defined(__x86_64__)
    if (!cjpeg_has_avx2()) return 1;
    const unsigned char *ra[8], *rb[8];
    for (int r = 0; r < 8; r++) { ra[r] = a + 8 * r; rb[r] = b + 8 * r; }
    short ours[2][64], theirs[2][64];
    cjpeg_dct_store_avx2(ra, rb, ours[0], ours[1]);
    cjpeg_fdct_c(ra, theirs[0]);
    cjpeg_fdct_c(rb, theirs[1]);
    return memcmp(ours, theirs, sizeof(ours)) == 0;
#else
    (void)a; (void)b;
    return 1;
#endif
}
#endif
