#ifndef HYBRID_CURL_SHIM_H
#define HYBRID_CURL_SHIM_H
// The C that Swift cannot write for libcurl: curl_easy_setopt is variadic. One call runs one
// blocking GET on the calling thread; libcurl calls back synchronously from its read loop, so a
// callback that returns 0 stops the transfer before another byte is read (back-pressure that
// FoundationNetworking's queued delegate does not give). Policy (limits, deadlines, what a
// failure means) stays in Swift: HybridHTTP/CurlStream.swift.
// Every symbol is prefixed `hk_`.
#ifdef __linux__
#include <stddef.h>
#include <stdint.h>

/// What one GET reports back, synchronously, on the thread that called `hk_curl_get`.
typedef struct hk_curl_callbacks {
    /// Passed back to every callback.
    void *context;
    /// One raw header line (status lines of redirects and interim responses included). Return 0 to stop.
    int (*header)(void *context, const char *line, size_t length);
    /// The final response's status and URL, once, before its first body byte (or at the end when
    /// it has no body). Return 0 to stop.
    int (*response)(void *context, long status, const char *effective_url);
    /// One piece of the body as it arrives. Return 0 to stop.
    int (*body)(void *context, const void *bytes, size_t length);
    /// Called every `tick_ms` while the transfer runs (and after each burst of bytes), where the
    /// caller checks its deadlines and cancellation. Return 0 to stop.
    int (*tick)(void *context);
} hk_curl_callbacks;

/// The outcome of `hk_curl_get` beyond its CURLcode.
typedef struct hk_curl_result {
    /// The final response's status, 0 when none arrived.
    long status;
    /// The declared `Content-Length` of the final response, -1 when none.
    int64_t declared;
    /// libcurl's message for a failure (empty on success).
    char message[256];
} hk_curl_result;

/// The CURLcodes Swift tells apart (libcurl's numbers, fixed by its ABI).
enum {
    HK_CURL_OK = 0,
    HK_CURL_OPERATION_TIMEDOUT = 28,
    HK_CURL_ABORTED_BY_CALLBACK = 42,
    HK_CURL_FILESIZE_EXCEEDED = 63,
    HK_CURL_WRITE_ERROR = 23,
};

/// GETs `url` (http or https only, following up to 10 redirects of those schemes), sending the
/// `header_count` request header lines `headers` ("Name: value"). A declared body longer than
/// `max_declared` is refused before it is read (when > 0). libcurl's own timeouts are backstops
/// only: `connect_ms` for the connection, `total_ms` for the whole transfer. The transfer runs
/// on libcurl's multi interface, waiting at most `tick_ms` for the socket between ticks.
/// Returns the CURLcode.
int hk_curl_get(const char *url, const char *const *headers, size_t header_count,
                int64_t max_declared, long connect_ms, long total_ms, long tick_ms,
                const hk_curl_callbacks *callbacks, hk_curl_result *result);

#endif
#endif
