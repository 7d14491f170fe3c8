#ifndef CHEIF_SHIM_H
#define CHEIF_SHIM_H
#include "../CDynamicTable/dynamic_table.h"
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

MP_DYNAMIC_TABLE(cheif, CHEIF_FUNCTIONS, "libheif.so.1")

#endif
