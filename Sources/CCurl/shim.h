#ifndef BMVAULT_CCURL_SHIM_H
#define BMVAULT_CCURL_SHIM_H

#include <curl/curl.h>

/* curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call: one typed
 * wrapper per kind of argument. */
static inline CURLcode bmvault_curl_set_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode bmvault_curl_set_offset(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode bmvault_curl_set_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode bmvault_curl_set_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode bmvault_curl_set_list(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}

typedef size_t (*bmvault_curl_data_callback)(char *data, size_t size, size_t count, void *context);

static inline CURLcode bmvault_curl_set_callback(CURL *handle, CURLoption option, bmvault_curl_data_callback value) {
    return curl_easy_setopt(handle, option, value);
}

/* The progress callback (CURLOPT_XFERINFOFUNCTION): how a request's own deadline, which grows
 * with the bytes it moves, is checked while it runs. */
static inline CURLcode bmvault_curl_set_progress(CURL *handle, curl_xferinfo_callback value) {
    return curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, value);
}

static inline CURLcode bmvault_curl_response_code(CURL *handle, long *code) {
    return curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, code);
}

/* How many new connections the last transfer had to make (0 when it reused one). */
static inline CURLcode bmvault_curl_connections_made(CURL *handle, long *count) {
    return curl_easy_getinfo(handle, CURLINFO_NUM_CONNECTS, count);
}

/* CURLAUTH_BASIC, a macro with a cast Swift cannot import. */
static inline long bmvault_curl_auth_basic(void) { return (long)CURLAUTH_BASIC; }

/* What a read callback returns to abandon the request (a macro Swift cannot see). */
static inline size_t bmvault_curl_read_abort(void) { return CURL_READFUNC_ABORT; }

/* The errno of the last failed connect (ECONNREFUSED, ...), 0 if none. */
static inline CURLcode bmvault_curl_os_errno(CURL *handle, long *value) {
    return curl_easy_getinfo(handle, CURLINFO_OS_ERRNO, value);
}

#endif
