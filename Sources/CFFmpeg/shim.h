#ifndef CFFMPEG_SHIM_H
#define CFFMPEG_SHIM_H
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavutil/avutil.h>
#include <libavutil/display.h>
#include <libavutil/error.h>
#include <libavutil/imgutils.h>
#include <libavutil/log.h>
#include <libavutil/opt.h>
#include <libavutil/buffer.h>
#include <libavutil/frame.h>
#include <libswscale/swscale.h>
#include <errno.h>
#include <math.h>

/* AVERROR() and AVERROR_EOF are function-like macros Swift cannot import. */
static inline int cff_error_eof(void) { return AVERROR_EOF; }
static inline int cff_error_again(void) { return AVERROR(EAGAIN); }
static inline int64_t cff_nopts(void) { return AV_NOPTS_VALUE; }
static inline int cff_time_base(void) { return AV_TIME_BASE; }

/* Rotation in degrees (counter-clockwise, as av_display_rotation_get) from the
   stream's display matrix, or NAN. The matrix moved from stream side data to
   codecpar->coded_side_data in FFmpeg 6.1; this hides the difference. */
static inline double cff_stream_rotation(const AVStream *st) {
    const uint8_t *m = NULL;
#if LIBAVFORMAT_VERSION_MAJOR > 60 || (LIBAVFORMAT_VERSION_MAJOR == 60 && LIBAVFORMAT_VERSION_MINOR >= 15)
    const AVPacketSideData *sd = av_packet_side_data_get(st->codecpar->coded_side_data,
        st->codecpar->nb_coded_side_data, AV_PKT_DATA_DISPLAYMATRIX);
    if (sd && sd->size >= 9 * 4) m = sd->data;
#else
    size_t size = 0;
    m = av_stream_get_side_data(st, AV_PKT_DATA_DISPLAYMATRIX, &size);
    if (size < 9 * 4) m = NULL;
#endif
    if (!m) return NAN;
    return av_display_rotation_get((const int32_t *)m);
}

/* sws_scale over a frame's plane arrays, which Swift sees as fixed-size tuples. */
static inline int cff_scale_frame(struct SwsContext *c, const AVFrame *f, uint8_t *dst, int dst_stride) {
    uint8_t *dst_planes[4] = { dst, NULL, NULL, NULL };
    int dst_strides[4] = { dst_stride, 0, 0, 0 };
    return sws_scale(c, (const uint8_t *const *)f->data, f->linesize, 0, f->height, dst_planes, dst_strides);
}

/* YUV->RGB coefficients for the frame's colorspace (BT.709 for HD video, not swscale's 601 default),
   and whether its YUV is full range (JPEG-style). */
static inline void cff_set_colorspace(struct SwsContext *c, const AVFrame *f) {
    int cs = SWS_CS_DEFAULT;
    switch (f->colorspace) {
    case AVCOL_SPC_BT709: cs = SWS_CS_ITU709; break;
    case AVCOL_SPC_BT2020_NCL: case AVCOL_SPC_BT2020_CL: cs = SWS_CS_BT2020; break;
    case AVCOL_SPC_SMPTE240M: cs = SWS_CS_SMPTE240M; break;
    case AVCOL_SPC_FCC: cs = SWS_CS_FCC; break;
    default: break;
    }
    int src_full = f->color_range == AVCOL_RANGE_JPEG
        || f->format == AV_PIX_FMT_YUVJ420P || f->format == AV_PIX_FMT_YUVJ422P || f->format == AV_PIX_FMT_YUVJ444P;
    int *inv_table, *table, src_range, dst_range, brightness, contrast, saturation;
    if (sws_getColorspaceDetails(c, &inv_table, &src_range, &table, &dst_range, &brightness, &contrast, &saturation) < 0)
        return;
    sws_setColorspaceDetails(c, sws_getCoefficients(cs), src_full, table, dst_range, brightness, contrast, saturation);
}

/* A scaler with swscale's slice threading (FFmpeg >= 5.0), configured through AVOptions. */
static inline struct SwsContext *cff_sws_threaded(int sw, int sh, enum AVPixelFormat sf,
                                                  int dw, int dh, enum AVPixelFormat df, int flags, int threads) {
    struct SwsContext *c = sws_alloc_context();
    if (!c) return NULL;
    av_opt_set_int(c, "srcw", sw, 0); av_opt_set_int(c, "srch", sh, 0); av_opt_set_int(c, "src_format", sf, 0);
    av_opt_set_int(c, "dstw", dw, 0); av_opt_set_int(c, "dsth", dh, 0); av_opt_set_int(c, "dst_format", df, 0);
    av_opt_set_int(c, "sws_flags", flags, 0);
    av_opt_set_int(c, "threads", threads, 0);
    if (sws_init_context(c, NULL, NULL) < 0) { sws_freeContext(c); return NULL; }
    return c;
}

static void cff_no_free(void *opaque, uint8_t *data) { (void)opaque; (void)data; }

/* Scales one packed image into caller-owned memory. Both buffers are wrapped as
   reference-counted frames that own nothing, so swscale neither copies nor allocates. */
static inline int cff_sws_scale_packed(struct SwsContext *c, const uint8_t *src, int src_stride, int sw, int sh,
                                       enum AVPixelFormat sf, uint8_t *dst, int dst_stride, int dw, int dh,
                                       enum AVPixelFormat df) {
    int ret = AVERROR(ENOMEM);
    AVFrame *in = av_frame_alloc(), *out = av_frame_alloc();
    if (!in || !out) goto end;
    in->buf[0] = av_buffer_create((uint8_t *)src, (size_t)src_stride * sh, cff_no_free, NULL, AV_BUFFER_FLAG_READONLY);
    out->buf[0] = av_buffer_create(dst, (size_t)dst_stride * dh, cff_no_free, NULL, 0);
    if (!in->buf[0] || !out->buf[0]) goto end;
    in->data[0] = (uint8_t *)src; in->linesize[0] = src_stride; in->width = sw; in->height = sh; in->format = sf;
    out->data[0] = dst; out->linesize[0] = dst_stride; out->width = dw; out->height = dh; out->format = df;
    ret = sws_scale_frame(c, out, in);
end:
    av_frame_free(&in);
    av_frame_free(&out);
    return ret;
}

/* Quiet FFmpeg's stderr logging: errors are reported through typed Swift errors. */
static inline void cff_quiet(void) { av_log_set_level(AV_LOG_QUIET); }
#endif
