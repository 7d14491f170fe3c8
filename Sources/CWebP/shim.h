#ifndef CWEBP_SHIM_H
#define CWEBP_SHIM_H
/* libwebpdemux's animation decoder through a typed dlopen table, opened the first time an animated
   WebP arrives (FFmpeg 5.1's WebP decoder has no animation). The header's inline wrappers pass the ABI
   version this was built against; the table reaches the versioned entry points they call. */
#include <webp/demux.h>
#include <dlfcn.h>
#include <stdio.h>

#define CWEBP_FUNCTIONS(X) X(WebPAnimDecoderOptionsInitInternal) X(WebPAnimDecoderNewInternal) \
    X(WebPAnimDecoderGetInfo) X(WebPAnimDecoderGetNext) X(WebPAnimDecoderHasMoreFrames) X(WebPAnimDecoderDelete)

#define CWEBP_FIELD(name) __typeof__(&name) _Nonnull name;
typedef struct cwebp { CWEBP_FUNCTIONS(CWEBP_FIELD) } cwebp;
#undef CWEBP_FIELD

/* Fills `table` (memory of sizeof(cwebp)) from libwebpdemux. Returns 0, or -1 with the reason in `err`. */
static inline int cwebp_load(void *table, char *err, int errlen) {
#define CWEBP_NAME(name) #name,
    static const char *const symbols[] = { CWEBP_FUNCTIONS(CWEBP_NAME) };
#undef CWEBP_NAME
    void *lib = dlopen("libwebpdemux.so.2", RTLD_NOW | RTLD_LOCAL);
    if (!lib) { snprintf(err, (size_t)errlen, "cannot load libwebpdemux.so.2: %s", dlerror()); return -1; }
    void **t = (void **)table;
    for (size_t i = 0; i < sizeof(symbols) / sizeof(*symbols); i++) {
        if (!(t[i] = dlsym(lib, symbols[i]))) { snprintf(err, (size_t)errlen, "missing symbol %s", symbols[i]); return -1; }
    }
    return 0;
}
static inline size_t cwebp_size(void) { return sizeof(cwebp); }
static inline int cwebp_abi(void) { return WEBP_DEMUX_ABI_VERSION; }
#endif
