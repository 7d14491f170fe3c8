#ifndef CCURL_SHIM_H
#define CCURL_SHIM_H
/* libcurl through a typed dlopen table, opened the first time a link preview is fetched. */
#include <curl/curl.h>
#include <dlfcn.h>
#include <stdio.h>

#define CCURL_FUNCTIONS(X) X(curl_global_init) X(curl_easy_init) X(curl_easy_setopt) X(curl_easy_perform) \
    X(curl_easy_getinfo) X(curl_easy_cleanup) X(curl_easy_strerror) X(curl_slist_append) X(curl_slist_free_all)

#define CCURL_FIELD(name) __typeof__(&name) _Nonnull name;
typedef struct ccurl { CCURL_FUNCTIONS(CCURL_FIELD) } ccurl;
#undef CCURL_FIELD

/* Fills `table` (memory of sizeof(ccurl)) from libcurl.so.4 and initialises libcurl once.
   Returns 0, or -1 with the reason in `err`. */
static inline int ccurl_load(void *table, char *err, int errlen) {
#define CCURL_NAME(name) #name,
    static const char *const symbols[] = { CCURL_FUNCTIONS(CCURL_NAME) };
#undef CCURL_NAME
    void *lib = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (!lib) { snprintf(err, (size_t)errlen, "cannot load libcurl.so.4: %s", dlerror()); return -1; }
    void **t = (void **)table;
    for (size_t i = 0; i < sizeof(symbols) / sizeof(*symbols); i++) {
        if (!(t[i] = dlsym(lib, symbols[i]))) { snprintf(err, (size_t)errlen, "missing symbol %s", symbols[i]); return -1; }
    }
    CURLcode rc = ((ccurl *)table)->curl_global_init(CURL_GLOBAL_DEFAULT);
    if (rc != CURLE_OK) { snprintf(err, (size_t)errlen, "curl_global_init failed (%d)", (int)rc); return -1; }
    return 0;
}
static inline size_t ccurl_size(void) { return sizeof(ccurl); }

/* curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call: one typed call each. */
static inline CURLcode ccurl_set_long(const ccurl *c, CURL *h, CURLoption o, long v) { return c->curl_easy_setopt(h, o, v); }
static inline CURLcode ccurl_set_pointer(const ccurl *c, CURL *h, CURLoption o, const void *v) { return c->curl_easy_setopt(h, o, v); }
static inline CURLcode ccurl_set_write(const ccurl *c, CURL *h, CURLoption o, curl_write_callback f) { return c->curl_easy_setopt(h, o, f); }
static inline CURLcode ccurl_set_progress(const ccurl *c, CURL *h, curl_xferinfo_callback f) {
    return c->curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, f);
}
static inline CURLcode ccurl_info_long(const ccurl *c, CURL *h, CURLINFO i, long *out) { return c->curl_easy_getinfo(h, i, out); }
#endif
