#ifndef CCURL_SHIM_H
#define CCURL_SHIM_H
#include "../CDynamicTable/dynamic_table.h"
/* libcurl through a typed dlopen table, opened the first time a link preview is fetched. */
#include <curl/curl.h>

#define CCURL_FUNCTIONS(X) X(curl_global_init) X(curl_easy_init) X(curl_easy_setopt) X(curl_easy_perform) \
    X(curl_easy_getinfo) X(curl_easy_cleanup) X(curl_easy_strerror) X(curl_slist_append) X(curl_slist_free_all)

/* Opened by DynamicTable.swift; CurlTransfer.swift then calls curl_global_init once. */
MP_DYNAMIC_TABLE(ccurl, CCURL_FUNCTIONS, "libcurl.so.4")

/* curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call: one typed call each. */
static inline CURLcode ccurl_set_long(const ccurl *c, CURL *h, CURLoption o, long v) { return c->curl_easy_setopt(h, o, v); }
static inline CURLcode ccurl_set_pointer(const ccurl *c, CURL *h, CURLoption o, const void *v) { return c->curl_easy_setopt(h, o, v); }
static inline CURLcode ccurl_set_write(const ccurl *c, CURL *h, CURLoption o, curl_write_callback f) { return c->curl_easy_setopt(h, o, f); }
static inline CURLcode ccurl_set_progress(const ccurl *c, CURL *h, curl_xferinfo_callback f) {
    return c->curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, f);
}
static inline CURLcode ccurl_info_long(const ccurl *c, CURL *h, CURLINFO i, long *out) { return c->curl_easy_getinfo(h, i, out); }
#endif
