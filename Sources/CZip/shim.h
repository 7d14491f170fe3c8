#ifndef CZIP_SHIM_H
#define CZIP_SHIM_H
#include "../CDynamicTable/dynamic_table.h"
/* libzip through a typed dlopen table, opened the first time a ZIP (or an Office, OpenDocument or EPUB
   package) is probed: it reads every member, copies the ones left alone without inflating them, and
   writes a new archive whose times, comments and extra fields are ours. */
#include <zip.h>

#define CZIP_FUNCTIONS(X) X(zip_open) X(zip_close) X(zip_discard) X(zip_get_num_entries) X(zip_stat_index) X(zip_get_name) \
    X(zip_fopen_index) X(zip_fread) X(zip_fclose) X(zip_get_error) X(zip_error_strerror) X(zip_error_init_with_code) X(zip_error_fini) \
    X(zip_source_zip) X(zip_source_file) X(zip_source_free) X(zip_file_add) X(zip_set_file_compression) \
    X(zip_file_set_dostime) X(zip_file_extra_field_delete) X(zip_file_set_external_attributes) X(zip_set_archive_comment) \
    X(zip_file_set_comment) X(zip_get_archive_comment) X(zip_file_get_comment) X(zip_file_extra_fields_count) X(zip_file_get_error) \
    X(zip_file_get_external_attributes)

MP_DYNAMIC_TABLE(czip, CZIP_FUNCTIONS, "libzip.so.4")

/* zip_stat's fields as one flat record (its valid-bits say which a damaged directory left out). */
typedef struct czip_entry { uint64_t size, compressed; int64_t mtime; uint32_t crc; uint16_t method; int encrypted; } czip_entry;
static inline int czip_stat(const czip *_Nonnull z, zip_t *_Nonnull za, uint64_t i, czip_entry *_Nonnull out) {
    zip_stat_t st;
    if (z->zip_stat_index(za, i, 0, &st) != 0) return -1;
    if ((st.valid & (ZIP_STAT_SIZE | ZIP_STAT_COMP_SIZE)) != (ZIP_STAT_SIZE | ZIP_STAT_COMP_SIZE)) return -1;
    out->size = st.size; out->compressed = st.comp_size;
    out->crc = (st.valid & ZIP_STAT_CRC) ? st.crc : 0;
    out->mtime = (st.valid & ZIP_STAT_MTIME) ? (int64_t)st.mtime : 0;
    out->method = (st.valid & ZIP_STAT_COMP_METHOD) ? st.comp_method : 0;
    out->encrypted = (st.valid & ZIP_STAT_ENCRYPTION_METHOD) && st.encryption_method != ZIP_EM_NONE;
    return 0;
}
#endif
