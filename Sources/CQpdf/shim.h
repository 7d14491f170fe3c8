#ifndef CQPDF_SHIM_H
#define CQPDF_SHIM_H
#include "../CDynamicTable/dynamic_table.h"
/* qpdf's C API through a typed dlopen table, opened the first time a PDF is probed: it reads every
   revision, xref stream and object stream a PDF may hold, lets its objects be edited, and writes the
   document whole again (one revision, fresh /ID), so nothing an earlier revision said survives. */
#include <qpdf/qpdf-c.h>

#define CQPDF_FUNCTIONS(X) X(qpdf_init) X(qpdf_cleanup) X(qpdf_silence_errors) X(qpdf_set_suppress_warnings) \
    X(qpdf_read) X(qpdf_has_error) X(qpdf_get_error) X(qpdf_get_error_full_text) X(qpdf_more_warnings) X(qpdf_next_warning) \
    X(qpdf_is_encrypted) X(qpdf_get_trailer) X(qpdf_get_root) X(qpdf_oh_release) \
    X(qpdf_oh_is_dictionary) X(qpdf_oh_is_stream) X(qpdf_oh_is_array) X(qpdf_oh_is_indirect) X(qpdf_oh_is_name_and_equals) X(qpdf_oh_is_name) \
    X(qpdf_oh_get_object_id) X(qpdf_oh_get_generation) X(qpdf_oh_get_array_n_items) X(qpdf_oh_get_array_item) \
    X(qpdf_oh_begin_dict_key_iter) X(qpdf_oh_dict_more_keys) X(qpdf_oh_dict_next_key) X(qpdf_oh_has_key) X(qpdf_oh_get_key) \
    X(qpdf_oh_remove_key) X(qpdf_oh_get_dict) X(qpdf_oh_get_stream_data) X(qpdf_oh_replace_stream_data) X(qpdf_oh_new_null) \
    X(qpdf_init_write) X(qpdf_set_object_stream_mode) X(qpdf_set_stream_data_mode) X(qpdf_set_deterministic_ID) \
    X(qpdf_set_suppress_original_object_IDs) X(qpdf_write)

MP_DYNAMIC_TABLE(cqpdf, CQPDF_FUNCTIONS, "libqpdf.so.29")

#endif
