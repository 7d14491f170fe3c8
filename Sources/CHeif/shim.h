#ifndef CHEIF_SHIM_H
#define CHEIF_SHIM_H
/* libheif through a typed dlopen table, opened the first time a HEIC/HEIF/AVIF file arrives. */
#include <libheif/heif.h>
#include <dlfcn.h>
#include <stdio.h>

#define CHEIF_FUNCTIONS(X) X(heif_context_alloc) X(heif_context_free) X(heif_context_read_from_memory_without_copy) \
    X(heif_context_get_primary_image_handle) X(heif_image_handle_release) X(heif_image_handle_get_width) \
    X(heif_image_handle_get_height) X(heif_image_handle_has_alpha_channel) X(heif_decode_image) X(heif_image_release) \
    X(heif_image_get_plane_readonly) X(heif_image_get_width) X(heif_image_get_height) \
    X(heif_image_handle_get_color_profile_type) X(heif_image_handle_get_raw_color_profile_size) \
    X(heif_image_handle_get_raw_color_profile) X(heif_image_handle_get_nclx_color_profile) X(heif_nclx_color_profile_free) \
    X(heif_image_handle_get_list_of_metadata_block_IDs) X(heif_image_handle_get_number_of_metadata_blocks) \
    X(heif_image_handle_get_metadata_type) X(heif_image_handle_get_metadata_size) X(heif_image_handle_get_metadata)

#define CHEIF_FIELD(name) __typeof__(&name) _Nonnull name;
typedef struct cheif { CHEIF_FUNCTIONS(CHEIF_FIELD) } cheif;
#undef CHEIF_FIELD

/* Fills `table` (memory of sizeof(cheif)) from libheif.so.1. Returns 0, or -1 with the reason in `err`. */
static inline int cheif_load(void *table, char *err, int errlen) {
#define CHEIF_NAME(name) #name,
    static const char *const symbols[] = { CHEIF_FUNCTIONS(CHEIF_NAME) };
#undef CHEIF_NAME
    void *lib = dlopen("libheif.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) { snprintf(err, (size_t)errlen, "cannot load libheif.so.1: %s", dlerror()); return -1; }
    void **t = (void **)table;
    for (size_t i = 0; i < sizeof(symbols) / sizeof(*symbols); i++) {
        if (!(t[i] = dlsym(lib, symbols[i]))) { snprintf(err, (size_t)errlen, "missing symbol %s", symbols[i]); return -1; }
    }
    return 0;
}
static inline size_t cheif_size(void) { return sizeof(cheif); }
#endif
