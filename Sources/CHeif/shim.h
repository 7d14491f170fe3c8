#ifndef CHEIF_SHIM_H
#define CHEIF_SHIM_H
/* libheif through a typed dlopen table, opened the first time a HEIC/HEIF/AVIF file arrives. */
#include <libheif/heif.h>

#define CHEIF_FUNCTIONS(X) X(heif_context_alloc) X(heif_context_free) X(heif_context_read_from_memory_without_copy) \
    X(heif_context_get_primary_image_handle) X(heif_image_handle_release) X(heif_image_handle_get_width) \
    X(heif_image_handle_get_height) X(heif_image_handle_has_alpha_channel) X(heif_image_handle_is_premultiplied_alpha) X(heif_decode_image) X(heif_image_release) \
    X(heif_image_get_plane_readonly) X(heif_image_get_bits_per_pixel_range) X(heif_image_get_width) X(heif_image_get_height) \
    X(heif_image_handle_get_color_profile_type) X(heif_image_handle_get_raw_color_profile_size) \
    X(heif_image_handle_get_raw_color_profile) X(heif_image_handle_get_nclx_color_profile) X(heif_nclx_color_profile_free) \
    X(heif_image_handle_get_list_of_metadata_block_IDs) X(heif_image_handle_get_number_of_metadata_blocks) \
    X(heif_image_handle_get_metadata_type) X(heif_image_handle_get_metadata_size) X(heif_image_handle_get_metadata)

#define CHEIF_FIELD(name) __typeof__(&name) _Nonnull name;
typedef struct cheif { CHEIF_FUNCTIONS(CHEIF_FIELD) } cheif;
#undef CHEIF_FIELD

/* The table's members by name, in order, and the library that has them (opened by DynamicTable.swift). */
#define CHEIF_NAME(name) #name,
static inline const char *const *_Nonnull cheif_symbols(void) { static const char *const s[] = { CHEIF_FUNCTIONS(CHEIF_NAME) NULL }; return s; }
#undef CHEIF_NAME
static inline const char *const *_Nonnull cheif_libraries(void) { static const char *const l[] = { "libheif.so.1", NULL }; return l; }
#endif
