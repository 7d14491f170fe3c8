#ifndef CFFMPEG_SHIM_H
#define CFFMPEG_SHIM_H
#include <libavformat/avformat.h>
#include <libavutil/time.h>
#include <libavutil/audio_fifo.h>
#include <libavutil/channel_layout.h>
#include <libswresample/swresample.h>
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
#include <dlfcn.h>
#include <stdio.h>
#include <math.h>

/* AVERROR() and AVERROR_EOF are function-like macros Swift cannot import. */
static inline int cff_error_eof(void) { return AVERROR_EOF; }
static inline int cff_error_again(void) { return AVERROR(EAGAIN); }
static inline int64_t cff_nopts(void) { return AV_NOPTS_VALUE; }
static inline int cff_time_base(void) { return AV_TIME_BASE; }

/* Rotation in degrees (counter-clockwise, as av_display_rotation_get) from the
   stream's display matrix, or NAN. The matrix moved from stream side data to
   codecpar->coded_side_data in FFmpeg 6.1; both are plain arrays, read without
   calling into libavformat (which is loaded lazily, see cff_av_load). */
static inline double cff_stream_rotation(const AVStream *st) {
    const uint8_t *m = NULL;
#if LIBAVFORMAT_VERSION_MAJOR > 60 || (LIBAVFORMAT_VERSION_MAJOR == 60 && LIBAVFORMAT_VERSION_MINOR >= 15)
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
    if (!m) return NAN;
    return av_display_rotation_get((const int32_t *)m);
}

/* libavformat and libavcodec pull in ~130 codec libraries whose loading alone costs
   ~35 ms per process; still images need neither. They are opened at run time, the first
   time audio, video or an FFmpeg-decoded image is touched, and called through this table. */
typedef struct cff_av {
    __typeof__(&avformat_open_input) avformat_open_input;
    __typeof__(&avformat_find_stream_info) avformat_find_stream_info;
    __typeof__(&avformat_close_input) avformat_close_input;
    __typeof__(&av_find_best_stream) av_find_best_stream;
    __typeof__(&av_read_frame) av_read_frame;
    __typeof__(&av_seek_frame) av_seek_frame;
    __typeof__(&avcodec_find_decoder) avcodec_find_decoder;
    __typeof__(&avcodec_get_name) avcodec_get_name;
    __typeof__(&avcodec_alloc_context3) avcodec_alloc_context3;
    __typeof__(&avcodec_free_context) avcodec_free_context;
    __typeof__(&avcodec_parameters_to_context) avcodec_parameters_to_context;
    __typeof__(&avcodec_open2) avcodec_open2;
    __typeof__(&avcodec_send_packet) avcodec_send_packet;
    __typeof__(&avcodec_receive_frame) avcodec_receive_frame;
    __typeof__(&avcodec_flush_buffers) avcodec_flush_buffers;
    __typeof__(&av_packet_alloc) av_packet_alloc;
    __typeof__(&av_packet_free) av_packet_free;
    __typeof__(&av_packet_unref) av_packet_unref;
    __typeof__(&avformat_alloc_context) avformat_alloc_context;
    __typeof__(&avio_alloc_context) avio_alloc_context;
    __typeof__(&avio_context_free) avio_context_free;
    __typeof__(&avformat_index_get_entries_count) avformat_index_get_entries_count;
    __typeof__(&avformat_index_get_entry) avformat_index_get_entry;
    __typeof__(&avcodec_find_encoder) avcodec_find_encoder;
    __typeof__(&avcodec_send_frame) avcodec_send_frame;
    __typeof__(&avcodec_receive_packet) avcodec_receive_packet;
    __typeof__(&avcodec_parameters_from_context) avcodec_parameters_from_context;
    __typeof__(&av_packet_rescale_ts) av_packet_rescale_ts;
    __typeof__(&avformat_alloc_output_context2) avformat_alloc_output_context2;
    __typeof__(&avformat_new_stream) avformat_new_stream;
    __typeof__(&avformat_free_context) avformat_free_context;
    __typeof__(&avformat_write_header) avformat_write_header;
    __typeof__(&av_interleaved_write_frame) av_interleaved_write_frame;
    __typeof__(&av_write_trailer) av_write_trailer;
    __typeof__(&avio_open) avio_open;
    __typeof__(&avio_closep) avio_closep;
    __typeof__(&avcodec_parameters_copy) avcodec_parameters_copy;
    __typeof__(&avcodec_find_encoder_by_name) avcodec_find_encoder_by_name;
#if !(LIBAVFORMAT_VERSION_MAJOR > 60 || (LIBAVFORMAT_VERSION_MAJOR == 60 && LIBAVFORMAT_VERSION_MINOR >= 15))
    __typeof__(&av_stream_get_side_data) av_stream_get_side_data;
    __typeof__(&av_stream_add_side_data) av_stream_add_side_data;
#endif
} cff_av;

/* Opens the libraries matching the headers' major versions and fills `api`.
   Returns 0, or -1 with a reason in `err`. */
static inline int cff_av_load(cff_av *api, char *err, int errlen) {
    const char *codec_name = "libavcodec.so." AV_STRINGIFY(LIBAVCODEC_VERSION_MAJOR);
    const char *format_name = "libavformat.so." AV_STRINGIFY(LIBAVFORMAT_VERSION_MAJOR);
    void *codec = dlopen(codec_name, RTLD_NOW | RTLD_GLOBAL);
    void *format = codec ? dlopen(format_name, RTLD_NOW | RTLD_GLOBAL) : NULL;
    if (!codec || !format) {
        snprintf(err, errlen, "cannot load %s: %s", codec ? format_name : codec_name, dlerror());
        return -1;
    }
#define CFF_SYM(lib, name) \
    if (!(api->name = (__typeof__(api->name))dlsym(lib, #name))) { snprintf(err, errlen, "missing symbol %s", #name); return -1; }
    CFF_SYM(format, avformat_open_input) CFF_SYM(format, avformat_find_stream_info)
    CFF_SYM(format, avformat_close_input) CFF_SYM(format, av_find_best_stream)
    CFF_SYM(format, av_read_frame) CFF_SYM(format, av_seek_frame)
    CFF_SYM(codec, avcodec_find_decoder) CFF_SYM(codec, avcodec_get_name)
    CFF_SYM(codec, avcodec_alloc_context3) CFF_SYM(codec, avcodec_free_context)
    CFF_SYM(codec, avcodec_parameters_to_context) CFF_SYM(codec, avcodec_open2)
    CFF_SYM(codec, avcodec_send_packet) CFF_SYM(codec, avcodec_receive_frame)
    CFF_SYM(codec, avcodec_flush_buffers) CFF_SYM(codec, av_packet_alloc)
    CFF_SYM(codec, av_packet_free) CFF_SYM(codec, av_packet_unref)
    CFF_SYM(format, avformat_alloc_context) CFF_SYM(format, avformat_index_get_entries_count)
    CFF_SYM(format, avio_alloc_context) CFF_SYM(format, avio_context_free)
    CFF_SYM(codec, avcodec_find_encoder) CFF_SYM(codec, avcodec_send_frame) CFF_SYM(codec, avcodec_receive_packet)
    CFF_SYM(codec, avcodec_parameters_from_context) CFF_SYM(codec, av_packet_rescale_ts)
    CFF_SYM(format, avformat_alloc_output_context2) CFF_SYM(format, avformat_new_stream) CFF_SYM(format, avformat_free_context)
    CFF_SYM(format, avformat_write_header) CFF_SYM(format, av_interleaved_write_frame) CFF_SYM(format, av_write_trailer)
    CFF_SYM(format, avio_open) CFF_SYM(format, avio_closep) CFF_SYM(codec, avcodec_parameters_copy)
    CFF_SYM(codec, avcodec_find_encoder_by_name)
#if !(LIBAVFORMAT_VERSION_MAJOR > 60 || (LIBAVFORMAT_VERSION_MAJOR == 60 && LIBAVFORMAT_VERSION_MINOR >= 15))
    CFF_SYM(format, av_stream_get_side_data) CFF_SYM(format, av_stream_add_side_data)
#endif
    CFF_SYM(format, avformat_index_get_entry)
#undef CFF_SYM
    return 0;
}

/* A time bound on everything libavformat does with one input (probing, reading packets): its
   blocking loops poll this callback and give up with AVERROR_EXIT once the deadline passes. */
typedef struct { int64_t deadline_us; } cff_deadline;
static int cff_deadline_passed(void *opaque) {
    const cff_deadline *d = (const cff_deadline *)opaque;
    return d && d->deadline_us > 0 && av_gettime_relative() > d->deadline_us;
}
static inline void cff_deadline_set(cff_deadline *d, double seconds) { d->deadline_us = av_gettime_relative() + (int64_t)(seconds * 1e6); }
static inline int cff_averror_exit(void) { return AVERROR_EXIT; }

/* Bytes in memory read as a file through a custom AVIOContext (probing data that never touched
   the disk, and the container fuzz target). The caller keeps `data` alive while the input is open. */
typedef struct { const uint8_t *data; int64_t size; int64_t pos; AVIOContext *avio; } cff_memory;

/* Frees a memory input's AVIOContext (libavformat leaves custom I/O to its owner). */
static inline void cffl_free_memory_io(const cff_av *a, cff_memory *m) {
    if (!m->avio) return;
    av_freep(&m->avio->buffer);
    a->avio_context_free(&m->avio);
}

static int cff_memory_read(void *opaque, uint8_t *buf, int n) {
    cff_memory *m = (cff_memory *)opaque;
    int64_t left = m->size - m->pos;
    if (left <= 0) return AVERROR_EOF;
    if (n > left) n = (int)left;
    memcpy(buf, m->data + m->pos, (size_t)n);
    m->pos += n;
    return n;
}

static int64_t cff_memory_seek(void *opaque, int64_t offset, int whence) {
    cff_memory *m = (cff_memory *)opaque;
    if (whence & AVSEEK_SIZE) return m->size;
    int64_t base = (whence & 3) == SEEK_CUR ? m->pos : (whence & 3) == SEEK_END ? m->size : 0;
    int64_t p = base + offset;
    if (p < 0 || p > m->size) return AVERROR(EINVAL);
    m->pos = p;
    return p;
}

/* Opens `url`, or a custom `pb` (url NULL), with `deadline` polled by libavformat's loops.
   On failure avformat_open_input frees the context and clears *ctx; a custom pb stays the caller's. */
static inline int cff_open(const cff_av *a, AVFormatContext **ctx, const char *url, AVIOContext *pb, cff_deadline *deadline) {
    AVFormatContext *c = a->avformat_alloc_context();
    if (!c) return AVERROR(ENOMEM);
    if (pb) { c->pb = pb; c->flags |= AVFMT_FLAG_CUSTOM_IO; }
    c->interrupt_callback.callback = cff_deadline_passed;
    c->interrupt_callback.opaque = deadline;
    *ctx = c;
    return a->avformat_open_input(ctx, url, NULL, NULL);
}

static inline int cffl_open_memory(const cff_av *a, AVFormatContext **ctx, cff_memory *m, cff_deadline *deadline) {
    unsigned char *buffer = av_malloc(4096);
    m->avio = buffer ? a->avio_alloc_context(buffer, 4096, 0, m, cff_memory_read, NULL, cff_memory_seek) : NULL;
    if (!m->avio) { av_free(buffer); return AVERROR(ENOMEM); }
    int rc = cff_open(a, ctx, NULL, m->avio, deadline);
    if (rc < 0) cffl_free_memory_io(a, m);
    return rc;
}
/* Non-optional entry points for Swift (a table field imports as an Optional). */
static inline int cffl_open_input(const cff_av *a, AVFormatContext **ctx, const char *url, cff_deadline *deadline) {
    return cff_open(a, ctx, url, NULL, deadline);
}
static inline int cffl_find_stream_info(const cff_av *a, AVFormatContext *ctx) { return a->avformat_find_stream_info(ctx, NULL); }
static inline void cffl_close_input(const cff_av *a, AVFormatContext **ctx) { a->avformat_close_input(ctx); }
static inline int cffl_find_best_stream(const cff_av *a, AVFormatContext *ctx, enum AVMediaType type) { return a->av_find_best_stream(ctx, type, -1, -1, NULL, 0); }
static inline int cffl_read_frame(const cff_av *a, AVFormatContext *ctx, AVPacket *pkt) { return a->av_read_frame(ctx, pkt); }
static inline int cffl_seek_frame(const cff_av *a, AVFormatContext *ctx, int stream, int64_t ts, int flags) { return a->av_seek_frame(ctx, stream, ts, flags); }
static inline const AVCodec *cffl_find_decoder(const cff_av *a, enum AVCodecID id) { return a->avcodec_find_decoder(id); }
static inline const char *cffl_codec_name(const cff_av *a, enum AVCodecID id) { return a->avcodec_get_name(id); }
static inline AVCodecContext *cffl_alloc_context(const cff_av *a, const AVCodec *codec) { return a->avcodec_alloc_context3(codec); }
static inline void cffl_free_context(const cff_av *a, AVCodecContext **ctx) { a->avcodec_free_context(ctx); }
static inline int cffl_parameters_to_context(const cff_av *a, AVCodecContext *ctx, const AVCodecParameters *par) { return a->avcodec_parameters_to_context(ctx, par); }
static inline int cffl_open_codec(const cff_av *a, AVCodecContext *ctx, const AVCodec *codec) { return a->avcodec_open2(ctx, codec, NULL); }
static inline int cffl_send_packet(const cff_av *a, AVCodecContext *ctx, const AVPacket *pkt) { return a->avcodec_send_packet(ctx, pkt); }
static inline int cffl_receive_frame(const cff_av *a, AVCodecContext *ctx, AVFrame *frame) { return a->avcodec_receive_frame(ctx, frame); }
static inline void cffl_flush_buffers(const cff_av *a, AVCodecContext *ctx) { a->avcodec_flush_buffers(ctx); }
static inline AVPacket *cffl_packet_alloc(const cff_av *a) { return a->av_packet_alloc(); }
static inline void cffl_packet_free(const cff_av *a, AVPacket **pkt) { a->av_packet_free(pkt); }
static inline void cffl_packet_unref(const cff_av *a, AVPacket *pkt) { a->av_packet_unref(pkt); }

/* The furthest byte a stream's index (MP4 sample table, Matroska cues) points at; -1 if it has none.
   A file shorter than that was cut off, however complete its header looks. */
static inline int64_t cffl_index_end(const cff_av *a, AVStream *st) {
    int n = a->avformat_index_get_entries_count(st);
    int64_t end = -1;
    for (int i = 0; i < n; i++) {
        const AVIndexEntry *e = a->avformat_index_get_entry(st, i);
        if (e && e->pos >= 0 && e->pos + e->size > end) end = e->pos + e->size;
    }
    return end;
}

/* ---- Voice notes: decode -> resample to mono -> AAC-LC in an .m4a, as the iOS app records them ---- */

/* A resampler from `in`'s layout, format and rate to `out_channels` (1 or 2) float-planar at `out_rate`. */
static inline SwrContext *cff_swr_for(const AVFrame *in, int out_rate, int out_channels) {
    SwrContext *s = NULL;
    AVChannelLayout out = {0}, inl = {0};  /* copy() uninits its target first */
    av_channel_layout_default(&out, out_channels);
    int n = in->ch_layout.nb_channels > 0 ? in->ch_layout.nb_channels : 1;
    if (in->ch_layout.order == AV_CHANNEL_ORDER_UNSPEC || in->ch_layout.nb_channels <= 0) av_channel_layout_default(&inl, n);
    else if (av_channel_layout_copy(&inl, &in->ch_layout) < 0) return NULL;
    int rc = swr_alloc_set_opts2(&s, &out, AV_SAMPLE_FMT_FLTP, out_rate, &inl, (enum AVSampleFormat)in->format, in->sample_rate, 0, NULL);
    av_channel_layout_uninit(&inl);
    if (rc < 0 || !s || swr_init(s) < 0) { swr_free(&s); return NULL; }
    return s;
}

/* Resamples `in` (NULL: flush what the resampler holds) into the FIFO of `channels` planes. */
static inline int cff_resample_into_fifo(SwrContext *swr, AVAudioFifo *fifo, const AVFrame *in, int out_rate, int channels) {
    int in_rate = in ? in->sample_rate : out_rate, in_n = in ? in->nb_samples : 0;
    int max_out = (int)av_rescale_rnd(swr_get_delay(swr, in_rate) + in_n, out_rate, in_rate, AV_ROUND_UP) + 32;
    uint8_t **buf = NULL;
    int linesize;
    if (av_samples_alloc_array_and_samples(&buf, &linesize, channels, max_out, AV_SAMPLE_FMT_FLTP, 0) < 0) return AVERROR(ENOMEM);
    int got = swr_convert(swr, buf, max_out, in ? (const uint8_t **)in->extended_data : NULL, in_n);
    int rc = got;
    if (got > 0) rc = av_audio_fifo_write(fifo, (void **)buf, got);
    av_freep(&buf[0]);
    av_freep(&buf);
    return rc < 0 ? rc : 0;
}

/* Takes `n` samples from the FIFO as a float-planar frame of `channels` stamped `pts`; NULL on failure. */
static inline AVFrame *cff_fifo_frame(AVAudioFifo *fifo, int n, int rate, int channels, int64_t pts) {
    AVFrame *f = av_frame_alloc();
    if (!f) return NULL;
    f->nb_samples = n;
    f->format = AV_SAMPLE_FMT_FLTP;
    f->sample_rate = rate;
    av_channel_layout_default(&f->ch_layout, channels);
    f->pts = pts;
    if (av_frame_get_buffer(f, 0) < 0 || av_audio_fifo_read(fifo, (void **)f->data, n) < n) { av_frame_free(&f); return NULL; }
    return f;
}

/* Configures an AAC-LC encoder context: `channels`, `rate` Hz, `bitrate` bit/s, header for MP4. */
static inline void cff_aac_configure(AVCodecContext *c, int rate, int channels, int bitrate) {
    c->sample_fmt = AV_SAMPLE_FMT_FLTP;
    c->sample_rate = rate;
    c->bit_rate = bitrate;
    av_channel_layout_default(&c->ch_layout, channels);
    c->time_base = (AVRational){1, rate};
    c->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
}

static inline int cffl_open_output(const cff_av *a, AVFormatContext **oc, const char *format, const char *path) {
    return a->avformat_alloc_output_context2(oc, NULL, format, path);
}
static inline int cffl_avio_open_write(const cff_av *a, AVFormatContext *oc, const char *path) { return a->avio_open(&oc->pb, path, AVIO_FLAG_WRITE); }
static inline int cffl_write_header(const cff_av *a, AVFormatContext *oc) {
    AVDictionary *opts = NULL;
    av_dict_set(&opts, "movflags", "+faststart", 0);
    int rc = a->avformat_write_header(oc, &opts);
    av_dict_free(&opts);
    return rc;
}
/* Frees an output context and closes its file. */
static inline void cffl_close_output(const cff_av *a, AVFormatContext *oc) {
    if (!oc) return;
    if (oc->pb) a->avio_closep(&oc->pb);
    a->avformat_free_context(oc);
}
static inline const AVCodec *cffl_find_encoder(const cff_av *a, enum AVCodecID id) { return a->avcodec_find_encoder(id); }
static inline const AVCodec *cffl_find_encoder_by_name(const cff_av *a, const char *name) { return a->avcodec_find_encoder_by_name(name); }
static inline int cffl_send_frame(const cff_av *a, AVCodecContext *c, const AVFrame *f) { return a->avcodec_send_frame(c, f); }
static inline int cffl_receive_packet(const cff_av *a, AVCodecContext *c, AVPacket *p) { return a->avcodec_receive_packet(c, p); }
static inline AVStream *cffl_new_stream(const cff_av *a, AVFormatContext *oc) { return a->avformat_new_stream(oc, NULL); }
static inline int cffl_parameters_from_context(const cff_av *a, AVCodecParameters *par, const AVCodecContext *c) { return a->avcodec_parameters_from_context(par, c); }
static inline void cffl_rescale_ts(const cff_av *a, AVPacket *p, AVRational from, AVRational to) { a->av_packet_rescale_ts(p, from, to); }
static inline int cffl_write_packet(const cff_av *a, AVFormatContext *oc, AVPacket *p) { return a->av_interleaved_write_frame(oc, p); }
static inline int cffl_write_trailer(const cff_av *a, AVFormatContext *oc) { return a->av_write_trailer(oc); }
static inline int cff_eagain(void) { return AVERROR(EAGAIN); }
static inline int cff_eof(void) { return AVERROR_EOF; }

/* ---- Remuxing: the same H.264/HEVC and AAC packets, moved into an MP4 (faststart) ---- */

/* Gives `os` the display matrix (rotation) of `is`, so players turn the picture as the source's did.
   FFmpeg >= 6.1 copies it with the codec parameters (coded_side_data); before, it is stream side data. */
static inline void cffl_copy_display_matrix(const cff_av *a, const AVStream *is, AVStream *os) {
#if !(LIBAVFORMAT_VERSION_MAJOR > 60 || (LIBAVFORMAT_VERSION_MAJOR == 60 && LIBAVFORMAT_VERSION_MINOR >= 15))
    size_t sd_size = 0;
    const uint8_t *sd = a->av_stream_get_side_data(is, AV_PKT_DATA_DISPLAYMATRIX, &sd_size);
    if (sd && sd_size >= 36) {
        uint8_t *copy = av_malloc(sd_size);
        if (copy) { memcpy(copy, sd, sd_size); if (a->av_stream_add_side_data(os, AV_PKT_DATA_DISPLAYMATRIX, copy, sd_size) < 0) av_free(copy); }
    }
#else
    /* avcodec_parameters_copy carried it for a remux; an encoder's parameters do not: append it. */
    (void)a;
    const AVPacketSideData *src = NULL;
    for (int i = 0; i < is->codecpar->nb_coded_side_data; i++)
        if (is->codecpar->coded_side_data[i].type == AV_PKT_DATA_DISPLAYMATRIX) src = &is->codecpar->coded_side_data[i];
    for (int i = 0; i < os->codecpar->nb_coded_side_data; i++)
        if (os->codecpar->coded_side_data[i].type == AV_PKT_DATA_DISPLAYMATRIX) return;
    if (!src || src->size < 36) return;
    uint8_t *copy = av_malloc(src->size);
    AVPacketSideData *grown = copy ? av_realloc_array(os->codecpar->coded_side_data, os->codecpar->nb_coded_side_data + 1, sizeof(*grown)) : NULL;
    if (!grown) { av_free(copy); return; }
    memcpy(copy, src->data, src->size);
    os->codecpar->coded_side_data = grown;
    grown[os->codecpar->nb_coded_side_data++] = (AVPacketSideData){ .data = copy, .size = src->size, .type = AV_PKT_DATA_DISPLAYMATRIX };
#endif
}

/* Copies every audio and video stream of `in` (read from its start) into an MP4 at `path`, packets
   untouched; the display matrix (rotation) goes along. Returns 0, or a negative AVERROR with `err`. */
static inline int cffl_remux_to_mp4(const cff_av *a, AVFormatContext *in, const char *path, const cff_deadline *deadline,
                                    char *err, int errlen) {
    AVFormatContext *out = NULL;
    AVPacket *pkt = NULL;
    int *map = NULL;
    int64_t *last_dts = NULL;
    int rc = a->avformat_alloc_output_context2(&out, NULL, "mp4", path);
    if (rc < 0 || !out) { snprintf(err, (size_t)errlen, "cannot set up an MP4 output"); goto done; }
    map = av_calloc(in->nb_streams, sizeof(int));
    last_dts = av_calloc(in->nb_streams, sizeof(int64_t));
    pkt = a->av_packet_alloc();
    if (!map || !last_dts || !pkt) { rc = AVERROR(ENOMEM); snprintf(err, (size_t)errlen, "out of memory"); goto done; }
    int next = 0;
    for (unsigned i = 0; i < in->nb_streams; i++) {
        AVStream *is = in->streams[i];
        enum AVMediaType t = is->codecpar->codec_type;
        map[i] = -1;
        if ((t != AVMEDIA_TYPE_VIDEO && t != AVMEDIA_TYPE_AUDIO) || (is->disposition & AV_DISPOSITION_ATTACHED_PIC)) continue;
        AVStream *os = a->avformat_new_stream(out, NULL);
        if (!os) { rc = AVERROR(ENOMEM); snprintf(err, (size_t)errlen, "cannot add a stream"); goto done; }
        if ((rc = a->avcodec_parameters_copy(os->codecpar, is->codecpar)) < 0) { snprintf(err, (size_t)errlen, "cannot copy codec parameters"); goto done; }
        os->codecpar->codec_tag = 0;  /* let the MP4 muxer pick its own (avc1, hvc1, mp4a) */
        if (is->codecpar->codec_id == AV_CODEC_ID_HEVC) os->codecpar->codec_tag = MKTAG('h', 'v', 'c', '1');  /* what AVPlayer plays */
        os->time_base = is->time_base;
        cffl_copy_display_matrix(a, is, os);
        map[i] = next++;
        last_dts[i] = AV_NOPTS_VALUE;
    }
    if (next == 0) { rc = AVERROR_STREAM_NOT_FOUND; snprintf(err, (size_t)errlen, "no audio or video stream"); goto done; }
    if ((rc = a->avio_open(&out->pb, path, AVIO_FLAG_WRITE)) < 0) { snprintf(err, (size_t)errlen, "cannot create the output"); goto done; }
    AVDictionary *opts = NULL;
    av_dict_set(&opts, "movflags", "+faststart", 0);
    rc = a->avformat_write_header(out, &opts);
    av_dict_free(&opts);
    if (rc < 0) { snprintf(err, (size_t)errlen, "cannot write the MP4 header"); goto done; }
    while ((rc = a->av_read_frame(in, pkt)) >= 0) {
        int si = pkt->stream_index;
        if (si < 0 || (unsigned)si >= in->nb_streams || map[si] < 0) { a->av_packet_unref(pkt); continue; }
        AVStream *is = in->streams[si], *os = out->streams[map[si]];
        /* Matroska leaves the DTS of the first reordered (B-frame) packets unset, which MP4 needs:
           count back from the PTS by the reorder depth, then keep DTS strictly increasing. */
        int64_t step = pkt->duration > 0 ? pkt->duration : 1;
        if (pkt->dts == AV_NOPTS_VALUE) {
            if (last_dts[si] != AV_NOPTS_VALUE) pkt->dts = last_dts[si] + step;
            else if (pkt->pts != AV_NOPTS_VALUE) pkt->dts = pkt->pts - (int64_t)is->codecpar->video_delay * step;
            else pkt->dts = 0;
        }
        if (last_dts[si] != AV_NOPTS_VALUE && pkt->dts <= last_dts[si]) pkt->dts = last_dts[si] + 1;
        if (pkt->pts != AV_NOPTS_VALUE && pkt->pts < pkt->dts) pkt->pts = pkt->dts;
        last_dts[si] = pkt->dts;
        pkt->stream_index = map[si];
        a->av_packet_rescale_ts(pkt, is->time_base, os->time_base);
        pkt->pos = -1;
        if ((rc = a->av_interleaved_write_frame(out, pkt)) < 0) { snprintf(err, (size_t)errlen, "cannot write a packet"); goto done; }
        if (cff_deadline_passed((void *)deadline)) { rc = AVERROR_EXIT; snprintf(err, (size_t)errlen, "took too long"); goto done; }
    }
    if (rc != AVERROR_EOF) { snprintf(err, (size_t)errlen, "the input is damaged"); goto done; }
    if ((rc = a->av_write_trailer(out)) < 0) { snprintf(err, (size_t)errlen, "cannot finish the MP4"); goto done; }
    rc = 0;
done:
    if (pkt) a->av_packet_free(&pkt);
    av_free(map);
    av_free(last_dts);
    if (out) { if (out->pb) a->avio_closep(&out->pb); a->avformat_free_context(out); }
    return rc;
}

/* ---- Video transcoding: decoded frames -> YUV 4:2:0 at the output size -> libx264 ---- */

/* Configures an H.264 encoder context. `bitrate` > 0: average bit rate (two-pass when `pass` is 1 or 2,
   with x264's statistics in `stats`); else constant quality `crf`. */
static inline int cff_h264_configure(AVCodecContext *c, int w, int h, AVRational time_base, AVRational fps,
                                     const char *preset, int crf, int64_t bitrate, int pass, const char *stats) {
    c->width = w; c->height = h;
    c->pix_fmt = AV_PIX_FMT_YUV420P;
    c->time_base = time_base;
    c->framerate = fps;
    c->sample_aspect_ratio = (AVRational){1, 1};
    c->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    c->thread_count = 0;
    int rc = av_opt_set(c->priv_data, "preset", preset, 0);
    if (rc < 0) return rc;
    if (bitrate > 0) {
        c->bit_rate = bitrate;
        if (pass == 1) c->flags |= AV_CODEC_FLAG_PASS1;
        if (pass == 2) c->flags |= AV_CODEC_FLAG_PASS2;
        if (pass && stats && (rc = av_opt_set(c->priv_data, "stats", stats, 0)) < 0) return rc;
    } else {
        if ((rc = av_opt_set_double(c->priv_data, "crf", crf, 0)) < 0) return rc;
    }
    return 0;
}

/* Sets a decoder to use `threads` threads (frame and slice threading where the codec has them). */
static inline void cff_decoder_threads(AVCodecContext *c, int threads, int slice_only) {
    c->thread_count = threads;
    c->thread_type = slice_only ? FF_THREAD_SLICE : (FF_THREAD_FRAME | FF_THREAD_SLICE);
}

/* Keyframes only: the decoder skips every other frame (thumbnail candidates). */
static inline void cff_decoder_keyframes_only(AVCodecContext *c, int on) { c->skip_frame = on ? AVDISCARD_NONKEY : AVDISCARD_DEFAULT; }

/* A writable YUV 4:2:0 frame of w x h for the encoder (a new buffer when the encoder still holds the last). */
static inline int cff_video_frame_ready(AVFrame *f, int w, int h) {
    if (!f->buf[0]) {
        f->format = AV_PIX_FMT_YUV420P; f->width = w; f->height = h;
        return av_frame_get_buffer(f, 0);
    }
    return av_frame_make_writable(f);
}

/* Scales `src` into `dst` (already sized and writable); the colour tags go along. */
static inline int cff_scale_into(struct SwsContext *c, AVFrame *dst, const AVFrame *src) {
    int rc = sws_scale(c, (const uint8_t *const *)src->data, src->linesize, 0, src->height, dst->data, dst->linesize);
    if (rc < 0) return rc;
    dst->color_primaries = src->color_primaries; dst->color_trc = src->color_trc; dst->colorspace = src->colorspace;
    dst->color_range = AVCOL_RANGE_MPEG;
    return 0;
}

/* How long a decoded frame is shown, in its stream's time base (0 if unknown). */
static inline int64_t cff_frame_duration(const AVFrame *f) {
#if LIBAVUTIL_VERSION_MAJOR >= 58
    return f->duration;
#else
    return f->pkt_duration;
#endif
}

/* Scales packed RGB (`src`, already flattened) into the encoder frame `dst`. */
static inline int cff_scale_packed_into(struct SwsContext *c, const uint8_t *src, int stride, int h, AVFrame *dst) {
    const uint8_t *planes[4] = { src, NULL, NULL, NULL };
    int strides[4] = { stride, 0, 0, 0 };
    int rc = sws_scale(c, planes, strides, 0, h, dst->data, dst->linesize);
    dst->color_range = AVCOL_RANGE_MPEG;
    return rc < 0 ? rc : 0;
}

/* A scaler (bicubic, as ffmpeg's scale filter) from a decoded frame's format to YUV 4:2:0 at dw x dh. */
static inline struct SwsContext *cff_video_scaler(int sw, int sh, enum AVPixelFormat sf, int dw, int dh) {
    return sws_getContext(sw, sh, sf, dw, dh, AV_PIX_FMT_YUV420P, SWS_BICUBIC, NULL, NULL, NULL);
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

/* Scales packed RGB(A) through planar RGB: swscale's packed-RGB output stage costs more than
   the scaling itself (5120->1600: 91 ms to RGB24, 38 ms to GBRP), while the unscaled
   planar-to-packed shuffle afterwards is cheap. `planar` is scratch memory for pw*ph*planes
   bytes; `scaler` converts src_fmt -> planar_fmt with scaling (threaded), `pack` converts
   planar_fmt -> dst_fmt at the same size. */
static inline int cff_scale_via_planar(struct SwsContext *scaler, struct SwsContext *pack,
                                       const uint8_t *src, int src_stride, int sw, int sh, enum AVPixelFormat src_fmt,
                                       uint8_t *planar, int pw, int ph, int planes, enum AVPixelFormat planar_fmt,
                                       uint8_t *dst, int dst_stride) {
    int ret = AVERROR(ENOMEM);
    size_t plane = (size_t)pw * ph;
    AVFrame *in = av_frame_alloc(), *mid = av_frame_alloc();
    if (!in || !mid) goto end;
    in->buf[0] = av_buffer_create((uint8_t *)src, (size_t)src_stride * sh, cff_no_free, NULL, AV_BUFFER_FLAG_READONLY);
    mid->buf[0] = av_buffer_create(planar, plane * planes, cff_no_free, NULL, 0);
    if (!in->buf[0] || !mid->buf[0]) goto end;
    in->data[0] = (uint8_t *)src; in->linesize[0] = src_stride; in->width = sw; in->height = sh; in->format = src_fmt;
    /* swscale's planar RGB order is G, B, R (and A). */
    for (int i = 0; i < planes; i++) { mid->data[i] = planar + i * plane; mid->linesize[i] = pw; }
    mid->width = pw; mid->height = ph; mid->format = planar_fmt;
    ret = sws_scale_frame(scaler, mid, in);
    if (ret < 0) goto end;
    {
        uint8_t *d[4] = { dst, NULL, NULL, NULL };
        int ds[4] = { dst_stride, 0, 0, 0 };
        ret = sws_scale(pack, (const uint8_t *const *)mid->data, mid->linesize, 0, ph, d, ds);
    }
end:
    av_frame_free(&in);
    av_frame_free(&mid);
    return ret;
}

/* Whether the demuxer's header already gave every parameter we use (ISO BMFF and Matroska
   headers carry them), so avformat_find_stream_info, which decodes frames to guess, can be skipped. */
static inline int cff_header_is_complete(const AVFormatContext *fmt) {
    if (fmt->nb_streams == 0 || fmt->duration == AV_NOPTS_VALUE || fmt->duration <= 0) return 0;
    for (unsigned i = 0; i < fmt->nb_streams; i++) {
        const AVStream *st = fmt->streams[i];
        const AVCodecParameters *p = st->codecpar;
        if (p->codec_id == AV_CODEC_ID_NONE) return 0;
        if (p->codec_type == AVMEDIA_TYPE_VIDEO && !(st->disposition & AV_DISPOSITION_ATTACHED_PIC)) {
            if (p->width <= 0 || p->height <= 0) return 0;
            if (st->avg_frame_rate.num <= 0 || st->avg_frame_rate.den <= 0) return 0;
        }
        if (p->codec_type == AVMEDIA_TYPE_AUDIO && (p->sample_rate <= 0 || p->ch_layout.nb_channels <= 0)) return 0;
    }
    return 1;
}

/* Converts (and scales) a decoded frame into caller-owned packed memory with swscale's slice threads. */
static inline int cff_convert_frame(const AVFrame *src, uint8_t *dst, int dst_stride, int dw, int dh,
                                    enum AVPixelFormat df, int flags, int threads) {
    struct SwsContext *c = cff_sws_threaded(src->width, src->height, (enum AVPixelFormat)src->format,
                                            dw, dh, df, flags, threads);
    if (!c) return AVERROR(EINVAL);
    cff_set_colorspace(c, src);
    int ret = AVERROR(ENOMEM);
    AVFrame *in = av_frame_alloc(), *out = av_frame_alloc();
    if (in && out && av_frame_ref(in, src) >= 0) {
        out->buf[0] = av_buffer_create(dst, (size_t)dst_stride * dh, cff_no_free, NULL, 0);
        if (out->buf[0]) {
            out->data[0] = dst; out->linesize[0] = dst_stride; out->width = dw; out->height = dh; out->format = df;
            ret = sws_scale_frame(c, out, in);
        }
    }
    av_frame_free(&in);
    av_frame_free(&out);
    sws_freeContext(c);
    return ret;
}

/* Quiet FFmpeg's stderr logging: errors are reported through typed Swift errors. */
static inline void cff_quiet(void) { av_log_set_level(AV_LOG_QUIET); }

/* Rows [y, y + h) of a packed image (src_rows points at row y) into a scaler whose output is planar
   (`planes` planes of pw*ph bytes, swscale's G, B, R, A order), through swscale's slice interface:
   slices go top to bottom, and each call outputs the lines its rows complete, so an image can be
   scaled while its later rows are still being decoded. The context must not be threaded. */
static inline int cff_sws_slice_to_planar(struct SwsContext *c, const uint8_t *src_rows, int src_stride, int y, int h,
                                          uint8_t *planar, int pw, int ph, int planes) {
    uint8_t *d[4] = { NULL, NULL, NULL, NULL };
    int ds[4] = { 0, 0, 0, 0 };
    size_t plane = (size_t)pw * ph;
    for (int i = 0; i < planes && i < 4; i++) { d[i] = planar + i * plane; ds[i] = pw; }
    const uint8_t *s[4] = { src_rows, NULL, NULL, NULL };
    int ss[4] = { src_stride, 0, 0, 0 };
    return sws_scale(c, s, ss, y, h, d, ds);
}

/* Planar G, B, R (, A) of pw*ph bytes each into packed rows, by an unscaled `pack` context. */
static inline int cff_sws_pack_planar(struct SwsContext *pack, const uint8_t *planar, int pw, int ph, int planes,
                                      uint8_t *dst, int dst_stride) {
    const uint8_t *s[4] = { NULL, NULL, NULL, NULL };
    int ss[4] = { 0, 0, 0, 0 };
    size_t plane = (size_t)pw * ph;
    for (int i = 0; i < planes && i < 4; i++) { s[i] = planar + i * plane; ss[i] = pw; }
    uint8_t *d[4] = { dst, NULL, NULL, NULL };
    int ds[4] = { dst_stride, 0, 0, 0 };
    return sws_scale(pack, s, ss, 0, ph, d, ds);
}
#endif
