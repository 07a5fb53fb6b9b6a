#ifndef HYBRID_CURL_SHIM_H
#define HYBRID_CURL_SHIM_H
// The C that Swift cannot write for libcurl: curl_easy_setopt is variadic. One call runs one
// blocking transfer on the calling thread; libcurl calls back synchronously from its read loop,
// so a callback that returns 0 stops the transfer before another byte is read (back-pressure that
// FoundationNetworking's queued delegate does not give). Policy (limits, deadlines, what a
// failure means) stays in Swift: HybridHTTP/CurlStream.swift and HybridHTTP/CurlExchange.swift.
// Every symbol is prefixed `hk_`.
#ifdef __linux__
#include <stddef.h>
#include <stdint.h>

/// What one transfer reports back, synchronously, on the thread that runs it.
typedef struct hk_curl_callbacks {
    /// Passed back to every callback.
    void *context;
    /// One raw header line (status lines of redirects and interim responses included). Return 0 to stop.
    int (*header)(void *context, const char *line, size_t length);
    /// The final response's status and URL, once: at the end of its head when redirects are not
    /// followed, else before its first body byte (or at the end when it has no body). Return 0 to stop.
    int (*response)(void *context, long status, const char *effective_url);
    /// One piece of the body as it arrives. Return 0 to stop.
    int (*body)(void *context, const void *bytes, size_t length);
    /// Called every `tick_ms` while the transfer runs (and after each burst of bytes), where the
    /// caller checks its deadlines and cancellation. Return 0 to stop.
    int (*tick)(void *context);
    /// Fills up to `length` bytes of a streamed request body (`hk_curl_request.body == NULL`,
    /// `body_size >= 0`): returns how many, 0 at its end, -1 to stop. May block. NULL otherwise.
    long (*read)(void *context, void *buffer, size_t length);
    /// Request body bytes sent so far, when that count changes. NULL for no reports.
    void (*sent)(void *context, int64_t sent, int64_t total);
} hk_curl_callbacks;

/// The outcome of a transfer beyond its CURLcode.
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
    HK_CURL_WRITE_ERROR = 23,
    HK_CURL_OPERATION_TIMEDOUT = 28,
    HK_CURL_ABORTED_BY_CALLBACK = 42,
    HK_CURL_GOT_NOTHING = 52,
    HK_CURL_SEND_ERROR = 55,
    HK_CURL_RECV_ERROR = 56,
    HK_CURL_FILESIZE_EXCEEDED = 63,
    HK_CURL_SEND_FAIL_REWIND = 65,
};

/// Connections, DNS answers and TLS sessions kept between transfers (a libcurl share handle with
/// its locks), so that transfers on different threads reuse kept-alive connections.
typedef struct hk_curl_share hk_curl_share;

/// A new share; NULL when libcurl cannot make one.
hk_curl_share *hk_curl_share_new(void);
/// Frees a share no transfer uses any more.
void hk_curl_share_free(hk_curl_share *share);

/// A multi handle a transfer runs on, made by the caller so that another thread can wake its
/// wait (`hk_curl_multi_wake`, libcurl's thread-safe `curl_multi_wakeup`) the moment it is cancelled.
typedef struct hk_curl_multi hk_curl_multi;

/// A new multi handle; NULL when libcurl cannot make one.
hk_curl_multi *hk_curl_multi_new(void);
/// Frees a multi handle no transfer runs on any more.
void hk_curl_multi_free(hk_curl_multi *multi);
/// Ends the current wait of the transfer running on `multi` at once (its tick then runs); safe
/// from any thread while the handle lives.
void hk_curl_multi_wake(hk_curl_multi *multi);

/// One request.
typedef struct hk_curl_request {
    /// An http or https URL.
    const char *url;
    /// The method as sent; NULL is GET. HEAD reads no body.
    const char *method;
    /// `header_count` lines as libcurl takes them: "Name: value", "Name;" (an empty value),
    /// "Name:" (leave libcurl's own header of that name out).
    const char *const *headers;
    size_t header_count;
    /// The body: `body_size` bytes at `body`, or read through `callbacks.read` when `body` is
    /// NULL. `body_size < 0`: no body.
    const void *body;
    int64_t body_size;
    /// Non-zero: follow up to 10 redirects (http and https only); zero: a 3xx is the response.
    int follow_redirects;
    /// A declared response body longer than this is refused before it is read (when > 0).
    int64_t max_declared;
    /// libcurl's own timeouts (0: none): for the connection, and for the whole transfer.
    long connect_ms;
    long total_ms;
    /// The longest wait for the socket between two ticks.
    long tick_ms;
    /// Bytes libcurl reads from the socket at once, and reads of a streamed body (0: its defaults).
    long receive_buffer;
    long send_buffer;
    /// Connections to reuse (NULL: the transfer's own).
    hk_curl_share *share;
    /// The multi handle to run on (NULL: one of the transfer's own, which nothing can wake).
    hk_curl_multi *multi;
} hk_curl_request;

/// Runs `request` on libcurl's multi interface on the calling thread. Returns the CURLcode.
int hk_curl_perform(const hk_curl_request *request, const hk_curl_callbacks *callbacks, hk_curl_result *result);

/// GETs `url` following redirects, sending `header_count` lines `headers` ("Name: value"):
/// `hk_curl_perform` with no body and no share. Returns the CURLcode.
int hk_curl_get(const char *url, const char *const *headers, size_t header_count,
                int64_t max_declared, long connect_ms, long total_ms, long tick_ms,
                const hk_curl_callbacks *callbacks, hk_curl_result *result);

#endif
#endif
