#ifndef CPNG_SHIM_H
#define CPNG_SHIM_H
#include "../CDynamicTable/dynamic_table.h"
#include <png.h>
#include <zlib.h>

/* libpng and zlib are opened the first time a PNG, a gzip or a zlib stream is read or written, not
   linked: a process that touches none does not load them (`plan`: 0.10 ms of its start). Their calls
   in this header go through the tables below by their own names (the macros after them); Swift calls
   them through the same tables. Both are opened by PNGLibrary.swift. */
#define CPNG_FUNCTIONS(X) X(png_create_read_struct) X(png_create_write_struct) X(png_create_info_struct) \
    X(png_destroy_read_struct) X(png_destroy_write_struct) X(png_error) X(png_get_valid) X(png_get_io_ptr) \
    X(png_get_error_ptr) X(png_get_bit_depth) X(png_get_channels) X(png_get_color_type) X(png_get_gAMA_fixed) \
    X(png_get_image_width) X(png_get_image_height) X(png_get_interlace_type) X(png_get_rowbytes) \
    X(png_read_info) X(png_read_update_info) X(png_read_row) X(png_read_end) X(png_write_info) \
    X(png_write_row) X(png_write_end) X(png_set_read_fn) X(png_set_write_fn) X(png_set_tRNS_to_alpha) \
    X(png_set_scale_16) X(png_set_palette_to_rgb) X(png_set_packing) X(png_set_option) X(png_set_gray_to_rgb) \
    X(png_set_expand_gray_1_2_4_to_8) X(png_set_crc_action) X(png_set_compression_level) X(png_set_PLTE) \
    X(png_set_IHDR) X(png_image_begin_read_from_memory) X(png_image_finish_read) X(png_image_free) \
    X(png_image_write_to_memory)
#define CZLIB_FUNCTIONS(X) X(inflateInit_) X(inflateInit2_) X(inflate) X(inflateEnd) X(deflateInit2_) \
    X(deflate) X(deflateEnd) X(deflateBound) X(crc32) X(compress2) X(compressBound)
MP_DYNAMIC_TABLE(cpng, CPNG_FUNCTIONS, "libpng16.so.16")
MP_DYNAMIC_TABLE(czlib, CZLIB_FUNCTIONS, "libz.so.1")

/* The tables, opened on the first call (PNGLibrary.swift; a process that cannot open one stops with
   status 75, as one the loader could not start did). */
const void *_Nonnull mediaprep_libpng(void);
const void *_Nonnull mediaprep_zlib(void);
#define CPNG_API ((const cpng *)mediaprep_libpng())
#define CZLIB_API ((const czlib *)mediaprep_zlib())
#define png_create_read_struct (CPNG_API->png_create_read_struct)
#define png_create_write_struct (CPNG_API->png_create_write_struct)
#define png_create_info_struct (CPNG_API->png_create_info_struct)
#define png_destroy_read_struct (CPNG_API->png_destroy_read_struct)
#define png_destroy_write_struct (CPNG_API->png_destroy_write_struct)
#define png_error (CPNG_API->png_error)
#define png_get_valid (CPNG_API->png_get_valid)
#define png_get_io_ptr (CPNG_API->png_get_io_ptr)
#define png_get_error_ptr (CPNG_API->png_get_error_ptr)
#define png_get_bit_depth (CPNG_API->png_get_bit_depth)
#define png_get_channels (CPNG_API->png_get_channels)
#define png_get_color_type (CPNG_API->png_get_color_type)
#define png_get_gAMA_fixed (CPNG_API->png_get_gAMA_fixed)
#define png_get_image_width (CPNG_API->png_get_image_width)
#define png_get_image_height (CPNG_API->png_get_image_height)
#define png_get_interlace_type (CPNG_API->png_get_interlace_type)
#define png_get_rowbytes (CPNG_API->png_get_rowbytes)
#define png_read_info (CPNG_API->png_read_info)
#define png_read_update_info (CPNG_API->png_read_update_info)
#define png_read_row (CPNG_API->png_read_row)
#define png_read_end (CPNG_API->png_read_end)
#define png_write_info (CPNG_API->png_write_info)
#define png_write_row (CPNG_API->png_write_row)
#define png_write_end (CPNG_API->png_write_end)
#define png_set_read_fn (CPNG_API->png_set_read_fn)
#define png_set_write_fn (CPNG_API->png_set_write_fn)
#define png_set_tRNS_to_alpha (CPNG_API->png_set_tRNS_to_alpha)
#define png_set_scale_16 (CPNG_API->png_set_scale_16)
#define png_set_palette_to_rgb (CPNG_API->png_set_palette_to_rgb)
#define png_set_packing (CPNG_API->png_set_packing)
#define png_set_option (CPNG_API->png_set_option)
#define png_set_gray_to_rgb (CPNG_API->png_set_gray_to_rgb)
#define png_set_expand_gray_1_2_4_to_8 (CPNG_API->png_set_expand_gray_1_2_4_to_8)
#define png_set_crc_action (CPNG_API->png_set_crc_action)
#define png_set_compression_level (CPNG_API->png_set_compression_level)
#define png_set_PLTE (CPNG_API->png_set_PLTE)
#define png_set_IHDR (CPNG_API->png_set_IHDR)
#define png_image_begin_read_from_memory (CPNG_API->png_image_begin_read_from_memory)
#define png_image_finish_read (CPNG_API->png_image_finish_read)
#define png_image_free (CPNG_API->png_image_free)
#define png_image_write_to_memory (CPNG_API->png_image_write_to_memory)
#define inflateInit_ (CZLIB_API->inflateInit_)
#define inflateInit2_ (CZLIB_API->inflateInit2_)
#define inflate (CZLIB_API->inflate)
#define inflateEnd (CZLIB_API->inflateEnd)
#define deflateInit2_ (CZLIB_API->deflateInit2_)
#define deflate (CZLIB_API->deflate)
#define deflateEnd (CZLIB_API->deflateEnd)
#define deflateBound (CZLIB_API->deflateBound)
#define crc32 (CZLIB_API->crc32)
#define compress2 (CZLIB_API->compress2)
#define compressBound (CZLIB_API->compressBound)

/* PNG_IMAGE_SIZE and friends are macros Swift cannot import. */
static inline size_t cpng_row_stride(const png_image *image) {
    return (size_t)PNG_IMAGE_ROW_STRIDE(*image);
}
static inline int cpng_failed(const png_image *image) {
    return PNG_IMAGE_FAILED(*image);
}
static inline png_uint_32 cpng_format_gray(void) { return PNG_FORMAT_GRAY; }
static inline png_uint_32 cpng_format_rgb(void) { return PNG_FORMAT_RGB; }
static inline png_uint_32 cpng_format_rgba(void) { return PNG_FORMAT_RGBA; }
static inline png_uint_32 cpng_format_flag_alpha(void) { return PNG_FORMAT_FLAG_ALPHA; }
static inline png_uint_32 cpng_format_flag_color(void) { return PNG_FORMAT_FLAG_COLOR; }
static inline png_uint_32 cpng_format_flag_colormap(void) { return PNG_FORMAT_FLAG_COLORMAP; }
static inline png_uint_32 cpng_version(void) { return PNG_IMAGE_VERSION; }
/* The most bytes the simplified writer can produce for `image` (stored blocks, every row filtered):
   a buffer this large lets png_image_write_to_memory encode once instead of sizing first. */
static inline size_t cpng_size_max(const png_image *image) { return (size_t)PNG_IMAGE_PNG_SIZE_MAX(*image); }

/* Row-by-row reading through libpng's own API, for the common case the simplified API would not
   change: not interlaced, sRGB gamma (16-bit samples scaled to 8). Rows can be consumed while later ones are
   still being inflated. Chunk CRCs stay checked (every compressed byte is covered, so a damaged
   file still fails); zlib's Adler-32 over the inflated data is skipped: it only re-checks what the
   CRCs cover, and cost ~7 % of a 5120 px decode (IceCold-5120.png: 245 → 226 ms). */
#include <setjmp.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* ---- A row unfiltered in place (PNG §9) before libpng reads it from inflated data, its filter byte
   then None, so libpng only copies it. Paeth, most rows of a photo, a pixel at a time in 16-bit SSE2
   lanes for 3 and 4 bytes a pixel: libpng 1.6 as Debian builds it runs it a byte at a time (32 % of
   ladybird-16bit.png's CPU). A filter type over 4 is left for libpng to report. ---- */

static inline unsigned char cpng_paeth(int a, int b, int c) {
    int p = b - c, q = a - c;
    int pa = p < 0 ? -p : p, pb = q < 0 ? -q : q, pc = p + q < 0 ? -(p + q) : p + q;
    return (unsigned char)(pa <= pb && pa <= pc ? a : pb <= pc ? b : c);
}

#if defined(__SSE2__)
/* `bpp` is a constant wherever these are inlined (3 or 4): the byte copies become single moves. */
static inline __attribute__((always_inline)) __m128i cpng_load_pixel(const unsigned char *p, const int bpp) {
    unsigned int v = 0;
    memcpy(&v, p, (size_t)bpp);
    return _mm_unpacklo_epi8(_mm_cvtsi32_si128((int)v), _mm_setzero_si128());
}

/* A Paeth row of 3- or 4-byte pixels: a is the pixel to the left, b the one above, c above-left. */
static inline __attribute__((always_inline)) void cpng_paeth_row_sse2(unsigned char *row, const unsigned char *prev,
                                                                       size_t bytes, const int bpp) {
    const __m128i zero = _mm_setzero_si128(), ones = _mm_set1_epi16(-1), low = _mm_set1_epi16(0xFF);
    __m128i a = zero, c = zero;
    for (size_t i = 0; i + (size_t)bpp <= bytes; i += (size_t)bpp) {
        __m128i b = cpng_load_pixel(prev + i, bpp), x = cpng_load_pixel(row + i, bpp);
        __m128i p = _mm_sub_epi16(b, c), q = _mm_sub_epi16(a, c), pq = _mm_add_epi16(p, q);
        __m128i pa = _mm_max_epi16(p, _mm_sub_epi16(zero, p));  /* |p - a| = |b - c| */
        __m128i pb = _mm_max_epi16(q, _mm_sub_epi16(zero, q));  /* |p - b| = |a - c| */
        __m128i pc = _mm_max_epi16(pq, _mm_sub_epi16(zero, pq));
        __m128i useA = _mm_andnot_si128(_mm_or_si128(_mm_cmpgt_epi16(pa, pb), _mm_cmpgt_epi16(pa, pc)), ones);
        __m128i useB = _mm_andnot_si128(_mm_cmpgt_epi16(pb, pc), ones);
        __m128i bc = _mm_or_si128(_mm_and_si128(useB, b), _mm_andnot_si128(useB, c));
        __m128i out = _mm_and_si128(_mm_add_epi16(x, _mm_or_si128(_mm_and_si128(useA, a), _mm_andnot_si128(useA, bc))), low);
        unsigned int v = (unsigned int)_mm_cvtsi128_si32(_mm_packus_epi16(out, out));
        memcpy(row + i, &v, (size_t)bpp);
        a = out;
        c = b;
    }
}
static void cpng_paeth_row3(unsigned char *row, const unsigned char *prev, size_t bytes) { cpng_paeth_row_sse2(row, prev, bytes, 3); }
static void cpng_paeth_row4(unsigned char *row, const unsigned char *prev, size_t bytes) { cpng_paeth_row_sse2(row, prev, bytes, 4); }
#endif

/* `f` is a row's filter byte followed by its `n` bytes; `prev` the row above, unfiltered (NULL: zeros). */
static inline void cpng_unfilter_row(unsigned char *f, const unsigned char *prev, size_t n, int bpp) {
    unsigned char *x = f + 1;
    size_t k = (size_t)bpp < n ? (size_t)bpp : n, i = 0;
    int type = *f;
    if (type > 4) return;
    if (!prev) {  /* above the first row: zeros, so Up adds nothing and Paeth predicts the left byte */
        if (type == 2) type = 0;
        if (type == 4) type = 1;
    }
    switch (type) {
    case 1: for (i = k; i < n; i++) x[i] = (unsigned char)(x[i] + x[i - (size_t)bpp]); break;
    case 2: for (i = 0; i < n; i++) x[i] = (unsigned char)(x[i] + prev[i]); break;
    case 3:
        for (i = 0; i < k; i++) x[i] = (unsigned char)(x[i] + (prev ? prev[i] >> 1 : 0));
        for (; i < n; i++) x[i] = (unsigned char)(x[i] + ((x[i - (size_t)bpp] + (prev ? prev[i] : 0)) >> 1));
        break;
    case 4:
#if defined(__SSE2__)
        if (bpp == 3 || bpp == 4) {
            (bpp == 3 ? cpng_paeth_row3 : cpng_paeth_row4)(x, prev, n);
            i = n - n % (size_t)bpp;
        }
#endif
        for (; i < k; i++) x[i] = (unsigned char)(x[i] + prev[i]);  /* no left pixel: predicts the one above */
        for (; i < n; i++) x[i] = (unsigned char)(x[i] + cpng_paeth(x[i - (size_t)bpp], prev[i], prev[i - (size_t)bpp]));
        break;
    default: break;
    }
    *f = 0;
}

typedef struct {
    png_structp png;
    png_infop info;
    const unsigned char *data;  /* the file in memory, or NULL: read from fd */
    int fd;
    size_t size, pos;
    jmp_buf jump;
    char message[200];
    int width, height, channels;
    size_t rowbytes;
    /* cpng_reader_open_inflated: the file's head (data[0, head)), one IDAT holding `inflated` in stored
       deflate blocks, the file's tail (data[tail, size)). seg: 0 head, 1 IDAT header and zlib header,
       2 a block's header, 3 its bytes, 4 Adler-32 and CRC, 5 tail, 6 past the end. */
    unsigned char *inflated;
    size_t inflated_size, head, tail, seg_pos, block;
    /* Rows unfiltered here just before libpng reads them (`bpp` > 0): each `row_size` bytes with its
       filter byte; the first `unfiltered` bytes are done. */
    size_t row_size, unfiltered;
    int bpp;
    int seg;
    unsigned char idat[10], block_header[5], trailer[8];
} cpng_reader;

#define CPNG_STORED_BLOCK 65535
static inline size_t cpng_block_size(const cpng_reader *r) {
    size_t left = r->inflated_size - r->block;
    return left < CPNG_STORED_BLOCK ? left : CPNG_STORED_BLOCK;
}
static inline void cpng_block_start(cpng_reader *r) {
    size_t n = cpng_block_size(r);
    r->block_header[0] = r->block + n >= r->inflated_size ? 1 : 0;  /* BFINAL on the last; BTYPE 00: stored */
    r->block_header[1] = (unsigned char)(n & 0xFF);
    r->block_header[2] = (unsigned char)(n >> 8);
    r->block_header[3] = (unsigned char)(~n & 0xFF);
    r->block_header[4] = (unsigned char)((~n >> 8) & 0xFF);
}
/* The synthetic stream's next `len` bytes, in order. */
static void cpng_synthetic_read(cpng_reader *r, png_structp p, unsigned char *out, size_t len) {
    while (len > 0) {
        const unsigned char *src;
        size_t avail;
        switch (r->seg) {
        case 0: src = r->data; avail = r->head; break;
        case 1: src = r->idat; avail = sizeof(r->idat); break;
        case 2: src = r->block_header; avail = sizeof(r->block_header); break;
        case 3: src = r->inflated + r->block; avail = cpng_block_size(r); break;
        case 4: src = r->trailer; avail = sizeof(r->trailer); break;
        case 5: src = r->data + r->tail; avail = r->size - r->tail; break;
        default: png_error(p, "read error: unexpected end of file"); return;
        }
        size_t n = avail - r->seg_pos < len ? avail - r->seg_pos : len;
        if (r->seg == 3 && r->bpp > 0) {
            size_t need = r->block + r->seg_pos + n;
            while (r->unfiltered < need && r->unfiltered + r->row_size <= r->inflated_size) {
                unsigned char *row = r->inflated + r->unfiltered;
                cpng_unfilter_row(row, r->unfiltered ? row - r->row_size + 1 : NULL, r->row_size - 1, r->bpp);
                r->unfiltered += r->row_size;
            }
        }
        memcpy(out, src + r->seg_pos, n);
        out += n;
        len -= n;
        r->seg_pos += n;
        if (r->seg_pos < avail) continue;
        r->seg_pos = 0;
        if (r->seg == 1) { r->block = 0; cpng_block_start(r); r->seg = 2; }
        else if (r->seg == 3) {
            r->block += avail;
            if (r->block < r->inflated_size) { cpng_block_start(r); r->seg = 2; } else r->seg = 4;
        } else r->seg++;
    }
}

static void cpng_reader_error(png_structp p, png_const_charp msg) {
    cpng_reader *r = (cpng_reader *)png_get_error_ptr(p);
    snprintf(r->message, sizeof(r->message), "%s", msg);
    longjmp(r->jump, 1);
}
static void cpng_reader_warning(png_structp p, png_const_charp msg) { (void)p; (void)msg; }
static void cpng_reader_read(png_structp p, png_bytep out, size_t len) {
    cpng_reader *r = (cpng_reader *)png_get_io_ptr(p);
    if (r->inflated) { cpng_synthetic_read(r, p, out, len); return; }
    if (!r->data) {
        /* Streaming: what libpng asks for, read where it left off (pread: the descriptor's offset is left alone). */
        size_t got = 0;
        while (got < len) {
            ssize_t n = pread(r->fd, out + got, len - got, (off_t)(r->pos + got));
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) png_error(p, "read error: unexpected end of file");
            got += (size_t)n;
        }
        r->pos += len;
        return;
    }
    if (len > r->size - r->pos) png_error(p, "read error: unexpected end of file");
    memcpy(out, r->data + r->pos, len);
    r->pos += len;
}

static inline void cpng_reader_close(cpng_reader *r) {
    if (r->png) png_destroy_read_struct(&r->png, r->info ? &r->info : NULL, NULL);
    r->png = NULL;
    r->info = NULL;
}

/* 0: ready (width, height, channels 1/3/4, rowbytes set); 1: a file the simplified API should read
   (interlaced, or a gamma it would convert); -1: damaged (message). Closed unless 0. */
static inline int cpng_reader_begin(cpng_reader *r);
static inline int cpng_reader_open(cpng_reader *r, const unsigned char *data, size_t size) {
    memset(r, 0, sizeof(*r));
    r->data = data;
    r->size = size;
    r->fd = -1;
    return cpng_reader_begin(r);
}

/* The same over a file whose image data was inflated already (libdeflate, a whole PNG at once): libpng
   reads it back as stored deflate blocks, every PNG rule its own; with `bpp` > 0 (bytes a pixel, at
   least 1) the rows, `row_size` bytes each with their filter byte, are unfiltered here, in place, as
   it reads them. The caller has checked every chunk's CRC and that `inflated` is exactly the image's
   filtered rows; `head` is where the first IDAT chunk starts and `tail` where the chunk after the last
   one does. */
/* Whether the synthetic stream's Adler-32 is checked (libpng without PNG_IGNORE_ADLER32): only then
   need the caller compute it. */
static inline int cpng_inflated_needs_adler(void) {
#ifdef PNG_IGNORE_ADLER32
    return 0;
#else
    return 1;
#endif
}

static inline int cpng_reader_open_inflated(cpng_reader *r, const unsigned char *data, size_t size, size_t head, size_t tail,
                                            unsigned char *inflated, size_t inflated_size, unsigned int adler,
                                            size_t row_size, int bpp) {
    memset(r, 0, sizeof(*r));
    if (!inflated || inflated_size == 0 || head < 8 || tail < head || tail > size) return 1;
    if (bpp > 0 && (row_size < 2 || inflated_size % row_size != 0)) return 1;
    r->row_size = row_size;
#ifdef PNG_IGNORE_ADLER32
    r->bpp = bpp;
#else
    r->bpp = 0;  /* zlib would check the Adler-32 of what it was given, computed before unfiltering */
#endif
    size_t blocks = (inflated_size + CPNG_STORED_BLOCK - 1) / CPNG_STORED_BLOCK;
    size_t length = 2 + 5 * blocks + inflated_size + 4;
    if (length > 0x7FFFFFFF) return 1;
    r->data = data;
    r->size = size;
    r->fd = -1;
    r->inflated = inflated;
    r->inflated_size = inflated_size;
    r->head = head;
    r->tail = tail;
    unsigned char idat[10] = { (unsigned char)(length >> 24), (unsigned char)(length >> 16), (unsigned char)(length >> 8),
                               (unsigned char)length, 'I', 'D', 'A', 'T', 0x78, 0x01 };
    memcpy(r->idat, idat, sizeof(idat));
    unsigned char trailer[8] = { (unsigned char)(adler >> 24), (unsigned char)(adler >> 16), (unsigned char)(adler >> 8),
                                 (unsigned char)adler, 0, 0, 0, 0 };  /* the chunk's CRC: not checked (above) */
    memcpy(r->trailer, trailer, sizeof(trailer));
    return cpng_reader_begin(r);
}

/* The same over an open file, read as libpng asks (the descriptor stays the caller's). */
static inline int cpng_reader_open_fd(cpng_reader *r, int fd) {
    memset(r, 0, sizeof(*r));
    r->fd = fd;
    return cpng_reader_begin(r);
}

static inline int cpng_reader_begin(cpng_reader *r) {
    r->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, r, cpng_reader_error, cpng_reader_warning);
    if (!r->png) { snprintf(r->message, sizeof(r->message), "out of memory"); return -1; }
    if (setjmp(r->jump)) { cpng_reader_close(r); return -1; }
    r->info = png_create_info_struct(r->png);
    if (!r->info) png_error(r->png, "out of memory");
    png_set_read_fn(r->png, r, cpng_reader_read);
    /* A synthetic stream's chunks were checked by the caller; its own IDAT has no CRC worth checking. */
    if (r->inflated) png_set_crc_action(r->png, PNG_CRC_QUIET_USE, PNG_CRC_QUIET_USE);
#ifdef PNG_IGNORE_ADLER32
    png_set_option(r->png, PNG_IGNORE_ADLER32, PNG_OPTION_ON);
#endif
    png_read_info(r->png, r->info);
    int depth = png_get_bit_depth(r->png, r->info), type = png_get_color_type(r->png, r->info);
    if (png_get_interlace_type(r->png, r->info) != PNG_INTERLACE_NONE) { cpng_reader_close(r); return 1; }
    png_fixed_point gamma = 0;
    if (!png_get_valid(r->png, r->info, PNG_INFO_sRGB) && png_get_gAMA_fixed(r->png, r->info, &gamma)
        && (gamma < 45455 - 5000 || gamma > 45455 + 5000)) { cpng_reader_close(r); return 1; }
    /* 16-bit samples with no gamma that says otherwise are sRGB-encoded like 8-bit ones (what viewers
       show); the simplified API would take them as linear and brighten them. Scaled, not truncated. */
    if (depth == 16) png_set_scale_16(r->png);
    int alpha = (type & PNG_COLOR_MASK_ALPHA) || png_get_valid(r->png, r->info, PNG_INFO_tRNS);
    if (type == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(r->png);
    if (type == PNG_COLOR_TYPE_GRAY && depth < 8) png_set_expand_gray_1_2_4_to_8(r->png);
    if (png_get_valid(r->png, r->info, PNG_INFO_tRNS)) png_set_tRNS_to_alpha(r->png);
    if (!(type & PNG_COLOR_MASK_COLOR) && alpha) png_set_gray_to_rgb(r->png);
    png_read_update_info(r->png, r->info);
    r->width = (int)png_get_image_width(r->png, r->info);
    r->height = (int)png_get_image_height(r->png, r->info);
    r->channels = png_get_channels(r->png, r->info);
    r->rowbytes = png_get_rowbytes(r->png, r->info);
    if (png_get_bit_depth(r->png, r->info) != 8 || !(r->channels == 1 || r->channels == 3 || r->channels == 4)
        || r->rowbytes != (size_t)r->width * (size_t)r->channels) { cpng_reader_close(r); return 1; }
    return 0;
}

/* Inflates the next `count` rows into out, out + stride, … (the band they form). 0, or -1 with
   message (then closed). */
static inline int cpng_reader_rows(cpng_reader *r, unsigned char *out, size_t stride, int count) {
    if (setjmp(r->jump)) { cpng_reader_close(r); return -1; }
    for (int i = 0; i < count; i++) png_read_row(r->png, out + (size_t)i * stride, NULL);
    return 0;
}

/* Reads the chunks after the image data, through IEND (their CRCs included). 0, or -1 (then closed). */
static inline int cpng_reader_finish(cpng_reader *r) {
    if (setjmp(r->jump)) { cpng_reader_close(r); return -1; }
    png_read_end(r->png, NULL);
    return 0;
}

/* A PNG written through libpng's standard API at a chosen zlib level, with libpng's usual adaptive
   filters: for size predictions (level 1 deflates photo-like rows ~5x faster than the default).
   Writes at most `capacity` bytes to `out`; returns the size, or -1 on error or overflow. */
typedef struct { unsigned char *out; size_t capacity, size; int overflow; jmp_buf jump; } cpng_writer;
static void cpng_writer_write(png_structp p, png_bytep data, size_t len) {
    cpng_writer *w = (cpng_writer *)png_get_io_ptr(p);
    if (len > w->capacity - w->size) { w->overflow = 1; png_error(p, "output buffer full"); }
    memcpy(w->out + w->size, data, len);
    w->size += len;
}
static void cpng_writer_flush(png_structp p) { (void)p; }
static void cpng_writer_error(png_structp p, png_const_charp msg) {
    (void)msg;
    cpng_writer *w = (cpng_writer *)png_get_error_ptr(p);
    longjmp(w->jump, 1);
}
/* `colours` > 0: one palette index a pixel into `palette` (RGB triples), written as a palette PNG. */
static inline long cpng_write_level(const unsigned char *pixels, int width, int height, int channels,
                                    const unsigned char *palette, int colours, int level, unsigned char *out, size_t capacity) {
    cpng_writer w;
    memset(&w, 0, sizeof(w));
    w.out = out;
    w.capacity = capacity;
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &w, cpng_writer_error, cpng_reader_warning);
    if (!png) return -1;
    png_infop info = NULL;
    if (setjmp(w.jump)) { png_destroy_write_struct(&png, info ? &info : NULL); return -1; }
    info = png_create_info_struct(png);
    if (!info) png_error(png, "out of memory");
    png_set_write_fn(png, &w, cpng_writer_write, cpng_writer_flush);
    png_set_compression_level(png, level);
    int type = colours > 0 ? PNG_COLOR_TYPE_PALETTE
        : channels == 4 ? PNG_COLOR_TYPE_RGB_ALPHA : (channels == 3 ? PNG_COLOR_TYPE_RGB : PNG_COLOR_TYPE_GRAY);
    /* A palette of up to 2, 4 or 16 colours packs 1, 2 or 4 bits an index, as the simplified writer does. */
    int depth = colours <= 0 || colours > 16 ? 8 : colours > 4 ? 4 : colours > 2 ? 2 : 1;
    png_set_IHDR(png, info, (png_uint_32)width, (png_uint_32)height, depth, type, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    if (depth < 8) png_set_packing(png);
    if (colours > 0) {
        png_color map[256];
        int n = colours < 256 ? colours : 256;
        for (int i = 0; i < n; i++) { map[i].red = palette[3 * i]; map[i].green = palette[3 * i + 1]; map[i].blue = palette[3 * i + 2]; }
        png_set_PLTE(png, info, map, n);
    }
    png_write_info(png, info);
    size_t stride = (size_t)width * (size_t)(colours > 0 ? 1 : channels);
    for (int y = 0; y < height; y++) png_write_row(png, pixels + (size_t)y * stride);
    png_write_end(png, info);
    png_destroy_write_struct(&png, &info);
    return (long)w.size;
}
/* Inflates a zlib stream (a PNG iCCP chunk's profile) into `out` of `cap` bytes: the size, or -1 when
   it is damaged or larger than `cap`. */
static inline long cpng_inflate(const unsigned char *in, size_t len, unsigned char *out, size_t cap) {
    z_stream z;
    memset(&z, 0, sizeof(z));
    if (inflateInit(&z) != Z_OK) return -1;
    z.next_in = (Bytef *)in; z.avail_in = (uInt)len;
    z.next_out = out; z.avail_out = (uInt)cap;
    int rc = inflate(&z, Z_FINISH);
    long size = rc == Z_STREAM_END ? (long)z.total_out : -1;
    inflateEnd(&z);
    return size;
}

/* ---- An RGBA picture composited on a background (r, g, b) into RGB, as a viewer shows it:
   (c·a + bg·(255 − a) + 127) / 255, rounded down as (x + 1 + (x >> 8)) >> 8 (exact over this
   range: AlphaOps.div255), every sum within 16 bits. Eight pixels at a time with AVX2 (2560×1440:
   10 ms on one core a pixel at a time), the rest one by one. ---- */

static inline void cpng_flatten_plain(const unsigned char *s, unsigned char *d, size_t n, unsigned r, unsigned g, unsigned b) {
    for (size_t i = 0; i < n; i++, s += 4, d += 3) {
        unsigned a = s[3], ia = 255 - a;
        unsigned x0 = s[0] * a + r * ia + 127, x1 = s[1] * a + g * ia + 127, x2 = s[2] * a + b * ia + 127;
        d[0] = (unsigned char)((x0 + 1 + (x0 >> 8)) >> 8);
        d[1] = (unsigned char)((x1 + 1 + (x1 >> 8)) >> 8);
        d[2] = (unsigned char)((x2 + 1 + (x2 >> 8)) >> 8);
    }
}

#if defined(__x86_64__)
#include <immintrin.h>
/* Eight 4-byte pixels stored as 24 bytes of RGB at `d`, each lane's 12 bytes written 16 wide: two
   pixels of room must follow. */
__attribute__((target("avx2")))
static inline void cpng_store_rgb_avx2(unsigned char *d, __m256i rgbx) {
    const __m256i rgb = _mm256_setr_epi8(0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1,
                                         0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1);
    __m256i packed = _mm256_shuffle_epi8(rgbx, rgb);
    _mm_storeu_si128((__m128i *)d, _mm256_castsi256_si128(packed));
    _mm_storeu_si128((__m128i *)(d + 12), _mm256_extracti128_si256(packed, 1));
}

__attribute__((target("avx2")))
static void cpng_flatten_avx2(const unsigned char *s, unsigned char *d, size_t n, unsigned r, unsigned g, unsigned b) {
    const __m256i zero = _mm256_setzero_si256(), full = _mm256_set1_epi16(255), round = _mm256_set1_epi16(127);
    const __m256i one = _mm256_set1_epi16(1);
    const __m256i bg = _mm256_setr_epi16((short)r, (short)g, (short)b, 0, (short)r, (short)g, (short)b, 0,
                                         (short)r, (short)g, (short)b, 0, (short)r, (short)g, (short)b, 0);
    size_t i = 0;
    for (; i + 10 <= n; i += 8) {  /* two pixels of room after each store (cpng_store_rgb_avx2) */
        __m256i v = _mm256_loadu_si256((const __m256i *)(s + 4 * i));
        __m256i out[2];
        for (int h = 0; h < 2; h++) {
            __m256i c = h ? _mm256_unpackhi_epi8(v, zero) : _mm256_unpacklo_epi8(v, zero);
            __m256i a = _mm256_shufflehi_epi16(_mm256_shufflelo_epi16(c, 0xFF), 0xFF);
            __m256i x = _mm256_add_epi16(_mm256_add_epi16(_mm256_mullo_epi16(c, a), _mm256_mullo_epi16(bg, _mm256_sub_epi16(full, a))), round);
            out[h] = _mm256_srli_epi16(_mm256_add_epi16(_mm256_add_epi16(x, one), _mm256_srli_epi16(x, 8)), 8);
        }
        cpng_store_rgb_avx2(d + 3 * i, _mm256_packus_epi16(out[0], out[1]));
    }
    cpng_flatten_plain(s + 4 * i, d + 3 * i, n - i, r, g, b);
}
#endif

/* `n` RGBX pixels at `s` as RGB at `d` (the fourth byte dropped), 32 bytes at a time with AVX2. */
static inline void cpng_drop_x_plain(const unsigned char *s, unsigned char *d, size_t n) {
    for (size_t i = 0; i < n; i++, s += 4, d += 3) { d[0] = s[0]; d[1] = s[1]; d[2] = s[2]; }
}

#if defined(__x86_64__)
__attribute__((target("avx2")))
static void cpng_drop_x_avx2(const unsigned char *s, unsigned char *d, size_t n) {
    size_t i = 0;
    for (; i + 10 <= n; i += 8) cpng_store_rgb_avx2(d + 3 * i, _mm256_loadu_si256((const __m256i *)(s + 4 * i)));
    cpng_drop_x_plain(s + 4 * i, d + 3 * i, n - i);
}
#endif

static inline void cpng_drop_x(const unsigned char *s, unsigned char *d, size_t n) {
#if defined(__x86_64__)
    if (__builtin_cpu_supports("avx2")) { cpng_drop_x_avx2(s, d, n); return; }
#endif
    cpng_drop_x_plain(s, d, n);
}

/* `n` RGBA pixels at `s` onto (r, g, b) as RGB at `d`. */
static inline void cpng_flatten(const unsigned char *s, unsigned char *d, size_t n, unsigned r, unsigned g, unsigned b) {
#if defined(__x86_64__)
    if (__builtin_cpu_supports("avx2")) { cpng_flatten_avx2(s, d, n, r, g, b); return; }
#endif
    cpng_flatten_plain(s, d, n, r, g, b);
}
/* gzip streams (an SVGZ drawing) through the zlib libpng links: inflateInit2 and deflateInit2 are
   macros Swift cannot import. 15 + 16: a 32 KiB window, gzip header and trailer. */
static inline int cpng_gzip_inflate_init(z_stream *s) { return inflateInit2(s, 15 + 16); }
/* A zlib stream (a PDF's FlateDecode), header and Adler-32 checked. */
static inline int cpng_zlib_inflate_init(z_stream *s) { return inflateInit2(s, 15); }
static inline int cpng_gzip_deflate_init(z_stream *s, int level) {
    return deflateInit2(s, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
}
#endif
