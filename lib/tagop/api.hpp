#pragma once
// What the shared library exports: the declarations of the installed headers
// and nothing else. The library is compiled with -fvisibility=hidden, and each
// installed header opens its namespace with TAGOP_API, so its classes,
// functions and their type information are the library's interface; the
// rest (internal headers, the JSON, protobuf and {fmt} code instantiated
// inside) stays private to libtagop.so.
//
// Thread safety: a macro; nothing to share.

/// Gives the declarations of a namespace body the default visibility: they are
/// exported from libtagop.so. Written as `namespace tagop TAGOP_API {`: after
/// the name, the place GCC and Clang both take a namespace's attribute.
#if defined(__GNUC__) || defined(__clang__)
#define TAGOP_API __attribute__((visibility("default")))
#else
#define TAGOP_API
#endif
