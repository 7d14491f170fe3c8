#ifndef CCURL_SHIM_H
#define CCURL_SHIM_H
/* libcurl through a typed dlopen table, opened the first time a link preview is fetched. */
#include <curl/curl.h>

#define CCURL_FUNCTIONS(X) X(curl_global_init) X(curl_easy_init) X(curl_easy_setopt) X(curl_easy_perform) \
    X(curl_easy_getinfo) X(curl_easy_cleanup) X(curl_easy_strerror) X(curl_slist_append) X(curl_slist_free_all)

#define CCURL_FIELD(name) __typeof__(&name) _Nonnull name;
typedef struct ccurl { CCURL_FUNCTIONS(CCURL_FIELD) } ccurl;
#undef CCURL_FIELD

/* The table's members by name, in order, and the library that has them (opened by DynamicTable.swift;
   CurlTransfer.swift then calls curl_global_init once). */
#define CCURL_NAME(name) #name,
static inline const char *const *_Nonnull ccurl_symbols(void) { static const char *const s[] = { CCURL_FUNCTIONS(CCURL_NAME) NULL }; return s; }
#undef CCURL_NAME
static inline const char *const *_Nonnull ccurl_libraries(void) { static const char *const l[] = { "libcurl.so.4", NULL }; return l; }

/* curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call: one typed call each. */
static inline CURLcode ccurl_set_long(const ccurl *c, CURL *h, CURLoption o, long v) { return c->curl_easy_setopt(h, o, v); }
static inline CURLcode ccurl_set_pointer(const ccurl *c, CURL *h, CURLoption o, const void *v) { return c->curl_easy_setopt(h, o, v); }
static inline CURLcode ccurl_set_write(const ccurl *c, CURL *h, CURLoption o, curl_write_callback f) { return c->curl_easy_setopt(h, o, f); }
static inline CURLcode ccurl_set_progress(const ccurl *c, CURL *h, curl_xferinfo_callback f) {
    return c->curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, f);
}
static inline CURLcode ccurl_info_long(const ccurl *c, CURL *h, CURLINFO i, long *out) { return c->curl_easy_getinfo(h, i, out); }
#endif
