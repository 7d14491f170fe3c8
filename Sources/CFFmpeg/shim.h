#ifndef CFFMPEG_SHIM_H
#define CFFMPEG_SHIM_H
#include "../CDynamicTable/dynamic_table.h"
/* Only what Swift cannot express: FFmpeg's error macros, fields that differ between versions, and the
   typed dlopen table. Nothing here calls into FFmpeg directly, so no FFmpeg library is linked: every
   entry point is reached through the tables, opened the first time an input needs them. */
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavfilter/avfilter.h>
#include <libavfilter/buffersink.h>
#include <libavfilter/buffersrc.h>
#include <libavutil/audio_fifo.h>
#include <libavutil/channel_layout.h>
#include <libavutil/display.h>
#include <libavutil/error.h>
#include <libavutil/frame.h>
#include <libavutil/log.h>
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
#include <libavutil/samplefmt.h>
#include <libswresample/swresample.h>
#include <libswscale/swscale.h>
#include <errno.h>

/* AVERROR() and AVERROR_EOF are function-like macros Swift cannot import. */
static inline int cff_averror(int posix) { return AVERROR(posix); }
static inline int cff_error_eof(void) { return AVERROR_EOF; }
static inline int cff_error_again(void) { return AVERROR(EAGAIN); }
static inline int cff_error_exit(void) { return AVERROR_EXIT; }
static inline int cff_error_enomem(void) { return AVERROR(ENOMEM); }
static inline int cff_error_stream_not_found(void) { return AVERROR_STREAM_NOT_FOUND; }
static inline int64_t cff_nopts(void) { return AV_NOPTS_VALUE; }
static inline int cff_time_base(void) { return AV_TIME_BASE; }
static inline uint32_t cff_tag_hvc1(void) { return MKTAG('h', 'v', 'c', '1'); }

/* The display matrix moved from stream side data to codecpar->coded_side_data in FFmpeg 6.1. */
#define CFF_CODED_SIDE_DATA (LIBAVFORMAT_VERSION_MAJOR > 60 || (LIBAVFORMAT_VERSION_MAJOR == 60 && LIBAVFORMAT_VERSION_MINOR >= 15))

/* How long a decoded frame is shown, in its stream's time base (0 if unknown). */
static inline int64_t cff_frame_duration(const AVFrame *f) {
#if LIBAVUTIL_VERSION_MAJOR >= 58
    return f->duration;
#else
    return f->pkt_duration;
#endif
}

/* Whether a decoded frame holds two fields (interlaced video: a camcorder's 1080i, a DVD). */
static inline int cff_frame_interlaced(const AVFrame *f) {
#if LIBAVUTIL_VERSION_MAJOR >= 59
    return (f->flags & AV_FRAME_FLAG_INTERLACED) != 0;
#else
    return f->interlaced_frame != 0;
#endif
}

/* ---- The typed tables: each member is an FFmpeg function's own type, never NULL once loaded ---- */

#define CFF_UTIL_FUNCTIONS(X) \
    X(av_frame_alloc) X(av_frame_free) X(av_frame_get_buffer) X(av_frame_make_writable) X(av_frame_ref) X(av_frame_get_side_data) \
    X(av_strerror) X(av_malloc) X(av_free) X(av_freep) X(av_calloc) X(av_buffer_create) \
    X(av_opt_set) X(av_opt_set_int) X(av_opt_set_double) X(av_dict_set) X(av_dict_get) X(av_dict_free) \
    X(av_pix_fmt_desc_get) X(av_log_set_level) X(av_display_rotation_get) X(av_rescale_rnd) \
    X(av_channel_layout_default) X(av_channel_layout_copy) X(av_channel_layout_uninit) \
    X(av_samples_alloc_array_and_samples) X(av_audio_fifo_alloc) X(av_audio_fifo_free) \
    X(av_audio_fifo_write) X(av_audio_fifo_read) X(av_audio_fifo_size) \
    X(sws_getContext) X(sws_freeContext) X(sws_alloc_context) X(sws_init_context) X(sws_scale) \
    X(sws_scale_frame) X(sws_frame_start) X(sws_frame_end) X(sws_send_slice) X(sws_receive_slice) \
    X(sws_receive_slice_alignment) X(sws_getColorspaceDetails) X(sws_setColorspaceDetails) X(sws_getCoefficients)

#if CFF_CODED_SIDE_DATA
#define CFF_SIDE_DATA_FUNCTIONS(X) X(av_realloc_array)
#else
#define CFF_SIDE_DATA_FUNCTIONS(X) X(av_stream_add_side_data)
#endif

#define CFF_MEDIA_FUNCTIONS(X) \
    X(avformat_alloc_context) X(avformat_open_input) X(avformat_find_stream_info) X(avformat_close_input) \
    X(av_find_best_stream) X(av_read_frame) X(av_seek_frame) X(avio_alloc_context) X(avio_context_free) \
    X(avformat_index_get_entries_count) X(avformat_index_get_entry) X(avformat_alloc_output_context2) \
    X(avformat_new_stream) X(avformat_free_context) X(avformat_write_header) X(av_interleaved_write_frame) \
    X(av_write_trailer) X(avio_open) X(avio_closep) X(avio_open_dyn_buf) X(avio_close_dyn_buf) \
    X(avcodec_find_decoder) X(avcodec_find_decoder_by_name) X(avcodec_find_encoder) X(avcodec_find_encoder_by_name) X(avcodec_get_name) \
    X(avcodec_alloc_context3) X(avcodec_free_context) X(avcodec_parameters_to_context) \
    X(avcodec_parameters_from_context) X(avcodec_parameters_copy) X(avcodec_open2) X(avcodec_send_packet) \
    X(avcodec_receive_frame) X(avcodec_send_frame) X(avcodec_receive_packet) X(avcodec_flush_buffers) \
    X(av_packet_alloc) X(av_packet_free) X(av_packet_unref) X(av_packet_rescale_ts) \
    X(swr_alloc_set_opts2) X(swr_init) X(swr_free) X(swr_convert) X(swr_get_delay) \
    CFF_SIDE_DATA_FUNCTIONS(X)

/* libavfilter: HDR frames mapped to SDR (zscale, tonemap) and GIF palettes (palettegen, paletteuse),
   opened only when such a frame arrives. */
#define CFF_FILTER_FUNCTIONS(X) \
    X(avfilter_graph_alloc) X(avfilter_graph_free) X(avfilter_get_by_name) X(avfilter_graph_create_filter) \
    X(avfilter_graph_parse_ptr) X(avfilter_inout_alloc) X(avfilter_inout_free) X(avfilter_graph_config) \
    X(av_buffersrc_add_frame_flags) X(av_buffersink_get_frame) X(av_strdup) X(av_frame_unref) X(av_frame_clone)

/* Each table's libraries are opened in order by DynamicTable.swift with RTLD_GLOBAL. The sonames are
   literals built from the headers' major versions, so the binary names them (scripts/make-deb.sh
   reads the sonames it may open). */
#define CFF_SONAME(lib, major) "lib" #lib ".so." AV_STRINGIFY(major)
/* libavutil and libswscale: what images need (scaling) and every other table builds on. */
MP_DYNAMIC_TABLE(cff_util, CFF_UTIL_FUNCTIONS, CFF_SONAME(avutil, LIBAVUTIL_VERSION_MAJOR), CFF_SONAME(swscale, LIBSWSCALE_VERSION_MAJOR))
/* libavformat, libavcodec, libswresample: containers, codecs, audio. */
MP_DYNAMIC_TABLE(cff_media, CFF_MEDIA_FUNCTIONS, CFF_SONAME(avcodec, LIBAVCODEC_VERSION_MAJOR), CFF_SONAME(avformat, LIBAVFORMAT_VERSION_MAJOR),
                 CFF_SONAME(swresample, LIBSWRESAMPLE_VERSION_MAJOR), CFF_SONAME(avutil, LIBAVUTIL_VERSION_MAJOR))
/* libavfilter. */
MP_DYNAMIC_TABLE(cff_filter, CFF_FILTER_FUNCTIONS, CFF_SONAME(avfilter, LIBAVFILTER_VERSION_MAJOR), CFF_SONAME(avutil, LIBAVUTIL_VERSION_MAJOR))
#undef CFF_SONAME

/* ---- Version-dependent side data: the display matrix (rotation) ---- */

/* The stream's display matrix (9 int32), or NULL. Plain arrays in both layouts, read without a call. */
static inline const int32_t *cff_display_matrix(const AVStream *st) {
    const uint8_t *m = NULL;
#if CFF_CODED_SIDE_DATA
    for (int i = 0; i < st->codecpar->nb_coded_side_data; i++) {
        const AVPacketSideData *sd = &st->codecpar->coded_side_data[i];
        if (sd->type == AV_PKT_DATA_DISPLAYMATRIX && sd->size >= 9 * 4) m = sd->data;
    }
#else
    for (int i = 0; i < st->nb_side_data; i++) {
        const AVPacketSideData *sd = &st->side_data[i];
        if (sd->type == AV_PKT_DATA_DISPLAYMATRIX && sd->size >= 9 * 4) m = sd->data;
    }
#endif
    return (const int32_t *)m;
}

/* Gives `os` a copy of `matrix` (36 bytes) unless it already has one (avcodec_parameters_copy carries
   it on FFmpeg >= 6.1). Returns 0 or a negative AVERROR. */
static inline int cff_add_display_matrix(const cff_util *u, const cff_media *m, AVStream *os, const int32_t *matrix) {
    uint8_t *copy = u->av_malloc(36);
    if (!copy) return AVERROR(ENOMEM);
    memcpy(copy, matrix, 36);
#if CFF_CODED_SIDE_DATA
    for (int i = 0; i < os->codecpar->nb_coded_side_data; i++)
        if (os->codecpar->coded_side_data[i].type == AV_PKT_DATA_DISPLAYMATRIX) { u->av_free(copy); return 0; }
    AVPacketSideData *grown = m->av_realloc_array(os->codecpar->coded_side_data, os->codecpar->nb_coded_side_data + 1, sizeof(*grown));
    if (!grown) { u->av_free(copy); return AVERROR(ENOMEM); }
    os->codecpar->coded_side_data = grown;
    grown[os->codecpar->nb_coded_side_data++] = (AVPacketSideData){ .data = copy, .size = 36, .type = AV_PKT_DATA_DISPLAYMATRIX };
    return 0;
#else
    int rc = m->av_stream_add_side_data(os, AV_PKT_DATA_DISPLAYMATRIX, copy, 36);
    if (rc < 0) u->av_free(copy);
    return rc;
#endif
}
/* `n` packed pixels of `channels` bytes (RGB, or RGB then X or A) at `s` into the planes `g`, `b`, `r`
   and, when `a` is not NULL, `a` (the fourth byte dropped otherwise): the planar source of a scale that
   runs every plane as gray does (`Resizer.identity`), 16 pixels at a time with SSSE3. */
static inline void cff_planes_plain(const uint8_t *s, size_t n, int channels, uint8_t *g, uint8_t *b, uint8_t *r, uint8_t *a) {
    for (size_t i = 0; i < n; i++, s += channels) {
        r[i] = s[0]; g[i] = s[1]; b[i] = s[2];
        if (a) a[i] = s[3];
    }
}

#if defined(__x86_64__)
#include <immintrin.h>
__attribute__((target("ssse3")))
static void cff_planes3_ssse3(const uint8_t *s, size_t n, uint8_t *g, uint8_t *b, uint8_t *r) {
    /* Each plane's 16 bytes gathered from the three 16-byte loads (48 bytes: 16 pixels). */
    const __m128i ra = _mm_setr_epi8(0, 3, 6, 9, 12, 15, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
    const __m128i rb = _mm_setr_epi8(-1, -1, -1, -1, -1, -1, 2, 5, 8, 11, 14, -1, -1, -1, -1, -1);
    const __m128i rc = _mm_setr_epi8(-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 1, 4, 7, 10, 13);
    const __m128i ga = _mm_setr_epi8(1, 4, 7, 10, 13, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
    const __m128i gb = _mm_setr_epi8(-1, -1, -1, -1, -1, 0, 3, 6, 9, 12, 15, -1, -1, -1, -1, -1);
    const __m128i gc = _mm_setr_epi8(-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 2, 5, 8, 11, 14);
    const __m128i ba = _mm_setr_epi8(2, 5, 8, 11, 14, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
    const __m128i bb = _mm_setr_epi8(-1, -1, -1, -1, -1, 1, 4, 7, 10, 13, -1, -1, -1, -1, -1, -1);
    const __m128i bc = _mm_setr_epi8(-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0, 3, 6, 9, 12, 15);
    size_t i = 0;
    for (; i + 16 <= n; i += 16, s += 48) {
        __m128i x = _mm_loadu_si128((const __m128i *)s), y = _mm_loadu_si128((const __m128i *)(s + 16));
        __m128i z = _mm_loadu_si128((const __m128i *)(s + 32));
        _mm_storeu_si128((__m128i *)(r + i), _mm_or_si128(_mm_or_si128(_mm_shuffle_epi8(x, ra), _mm_shuffle_epi8(y, rb)), _mm_shuffle_epi8(z, rc)));
        _mm_storeu_si128((__m128i *)(g + i), _mm_or_si128(_mm_or_si128(_mm_shuffle_epi8(x, ga), _mm_shuffle_epi8(y, gb)), _mm_shuffle_epi8(z, gc)));
        _mm_storeu_si128((__m128i *)(b + i), _mm_or_si128(_mm_or_si128(_mm_shuffle_epi8(x, ba), _mm_shuffle_epi8(y, bb)), _mm_shuffle_epi8(z, bc)));
    }
    cff_planes_plain(s, n - i, 3, g + i, b + i, r + i, NULL);
}

__attribute__((target("ssse3")))
static void cff_planes4_ssse3(const uint8_t *s, size_t n, uint8_t *g, uint8_t *b, uint8_t *r, uint8_t *a) {
    /* Four pixels' channels grouped in each 16-byte load, then a 4×4 transpose of 32-bit lanes. */
    const __m128i group = _mm_setr_epi8(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
    size_t i = 0;
    for (; i + 16 <= n; i += 16, s += 64) {
        __m128i x0 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)s), group);
        __m128i x1 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(s + 16)), group);
        __m128i x2 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(s + 32)), group);
        __m128i x3 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(s + 48)), group);
        __m128i rg01 = _mm_unpacklo_epi32(x0, x1), rg23 = _mm_unpacklo_epi32(x2, x3);
        __m128i ba01 = _mm_unpackhi_epi32(x0, x1), ba23 = _mm_unpackhi_epi32(x2, x3);
        _mm_storeu_si128((__m128i *)(r + i), _mm_unpacklo_epi64(rg01, rg23));
        _mm_storeu_si128((__m128i *)(g + i), _mm_unpackhi_epi64(rg01, rg23));
        _mm_storeu_si128((__m128i *)(b + i), _mm_unpacklo_epi64(ba01, ba23));
        if (a) _mm_storeu_si128((__m128i *)(a + i), _mm_unpackhi_epi64(ba01, ba23));
    }
    cff_planes_plain(s, n - i, 4, g + i, b + i, r + i, a ? a + i : NULL);
}
#endif

static inline void cff_planes(const uint8_t *s, size_t n, int channels, uint8_t *g, uint8_t *b, uint8_t *r, uint8_t *a) {
#if defined(__x86_64__)
    if (__builtin_cpu_supports("ssse3")) {
        if (channels == 3) cff_planes3_ssse3(s, n, g, b, r);
        else cff_planes4_ssse3(s, n, g, b, r, a);
        return;
    }
#endif
    cff_planes_plain(s, n, channels, g, b, r, a);
}
#endif
