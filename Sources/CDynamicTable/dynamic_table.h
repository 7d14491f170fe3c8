#ifndef MEDIAPREP_DYNAMIC_TABLE_H
#define MEDIAPREP_DYNAMIC_TABLE_H
/* One library's typed dlopen table, as every shim declares it (DynamicTable.swift opens it the first
   time an input needs the library). MP_DYNAMIC_TABLE(t, FUNCTIONS, "libx.so.N", ...) declares
   `typedef struct t { ... } t;`, one member per function of the X-macro list FUNCTIONS, typed as the
   library's own header declares it; `t_symbols()`, their names in the same order; and
   `t_libraries()`, the sonames to open in order. Both lists end with NULL. A table with members of
   its own (data, untyped variadics) writes its struct and symbols by hand with MP_TABLE_FIELD and
   MP_TABLE_NAME, and its sonames with MP_TABLE_LIBRARIES. Included by the shims by path: it holds
   macros only, so it is no module's own. */
#define MP_TABLE_FIELD(name) __typeof__(&name) _Nonnull name;
#define MP_TABLE_NAME(name) #name,
#define MP_TABLE_LIBRARIES(table, ...) \
    static inline const char *const *_Nonnull table##_libraries(void) { static const char *const l[] = { __VA_ARGS__, NULL }; return l; }
#define MP_DYNAMIC_TABLE(table, FUNCTIONS, ...) \
    typedef struct table { FUNCTIONS(MP_TABLE_FIELD) } table; \
    static inline const char *const *_Nonnull table##_symbols(void) { static const char *const s[] = { FUNCTIONS(MP_TABLE_NAME) NULL }; return s; } \
    MP_TABLE_LIBRARIES(table, __VA_ARGS__)
#endif
