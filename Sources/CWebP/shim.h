#ifndef CWEBP_SHIM_H
#define CWEBP_SHIM_H
#include "../CDynamicTable/dynamic_table.h"
/* libwebpdemux's animation decoder through a typed dlopen table, opened the first time an animated
   WebP arrives (FFmpeg 5.1's WebP decoder has no animation). The header's inline wrappers pass the ABI
   version this was built against; the table reaches the versioned entry points they call. */
#include <webp/demux.h>

#define CWEBP_FUNCTIONS(X) X(WebPAnimDecoderOptionsInitInternal) X(WebPAnimDecoderNewInternal) \
    X(WebPAnimDecoderGetInfo) X(WebPAnimDecoderGetNext) X(WebPAnimDecoderHasMoreFrames) X(WebPAnimDecoderDelete)

MP_DYNAMIC_TABLE(cwebp, CWEBP_FUNCTIONS, "libwebpdemux.so.2")

static inline int cwebp_abi(void) { return WEBP_DEMUX_ABI_VERSION; }

/* libwebp's still decoder, opened the first time a still WebP arrives: its header read without
   decoding (WebPGetFeatures), then one decode into memory of ours, scaled by libwebp on the way
   when the caller needs fewer pixels (libvips's shrink-on-load for WebP). */
#define CWEBPDEC_FUNCTIONS(X) X(WebPGetFeaturesInternal) X(WebPInitDecoderConfigInternal) X(WebPDecode) X(WebPFreeDecBuffer)

MP_DYNAMIC_TABLE(cwebpdec, CWEBPDEC_FUNCTIONS, "libwebp.so.7")

/* Whether the libwebp loaded speaks the decoder ABI this was built against (its Init refuses another). */
static inline int cwebpdec_abi_matches(const cwebpdec *t) {
    WebPDecoderConfig config;
    return t->WebPInitDecoderConfigInternal(&config, WEBP_DECODER_ABI_VERSION) != 0;
}

/* The header: size, alpha, animation, lossy or lossless. Returns libwebp's VP8StatusCode. */
static inline int cwebpdec_features(const cwebpdec *t, const uint8_t *data, size_t size, WebPBitstreamFeatures *f) {
    return (int)t->WebPGetFeaturesInternal(data, size, f, WEBP_DECODER_ABI_VERSION);
}

/* Decodes into `out` (height rows of `stride` bytes, RGB or RGBA), at width×height: the file's size,
   or, with `scale`, smaller (libwebp's rescaler). WebPDecode reads the header itself. Returns
   libwebp's VP8StatusCode (0: VP8_STATUS_OK). */
static inline int cwebpdec_decode(const cwebpdec *t, const uint8_t *data, size_t size, int rgba, int scale, int width, int height,
                                  int threads, uint8_t *out, int stride, size_t out_size) {
    WebPDecoderConfig config;
    if (!t->WebPInitDecoderConfigInternal(&config, WEBP_DECODER_ABI_VERSION)) return VP8_STATUS_INVALID_PARAM;
    if (scale) {
        config.options.use_scaling = 1;
        config.options.scaled_width = width;
        config.options.scaled_height = height;
    }
    config.options.use_threads = threads > 1;
    config.output.colorspace = rgba ? MODE_RGBA : MODE_RGB;
    config.output.is_external_memory = 1;
    config.output.width = width;
    config.output.height = height;
    config.output.u.RGBA.rgba = out;
    config.output.u.RGBA.stride = stride;
    config.output.u.RGBA.size = out_size;
    int status = (int)t->WebPDecode(data, size, &config);
    t->WebPFreeDecBuffer(&config.output);  /* frees only what libwebp allocated itself */
    return status;
}
#endif
