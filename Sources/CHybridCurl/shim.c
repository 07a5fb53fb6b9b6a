#ifdef __linux__
#include "hybrid_curl_shim.h"
#include <curl/curl.h>
#include <pthread.h>
#include <string.h>

static pthread_once_t hk_curl_once = PTHREAD_ONCE_INIT;
static void hk_curl_global(void) { curl_global_init(CURL_GLOBAL_DEFAULT); }

typedef struct hk_curl_state {
    CURL *easy;
    const hk_curl_callbacks *callbacks;
    int responded;
    int stopped;
} hk_curl_state;

static int hk_respond(hk_curl_state *state) {
    if (state->responded) return 1;
    state->responded = 1;
    long status = 0;
    char *url = NULL;
    curl_easy_getinfo(state->easy, CURLINFO_RESPONSE_CODE, &status);
    curl_easy_getinfo(state->easy, CURLINFO_EFFECTIVE_URL, &url);
    return state->callbacks->response(state->callbacks->context, status, url ? url : "");
}

static size_t hk_on_header(char *line, size_t size, size_t count, void *user) {
    hk_curl_state *state = user;
    size_t length = size * count;
    if (!state->callbacks->header(state->callbacks->context, line, length)) { state->stopped = 1; return 0; }
    return length;
}

static size_t hk_on_body(char *bytes, size_t size, size_t count, void *user) {
    hk_curl_state *state = user;
    size_t length = size * count;
    if (!hk_respond(state) || !state->callbacks->body(state->callbacks->context, bytes, length)) {
        state->stopped = 1;
        return 0;  // fewer bytes than given: libcurl stops with CURLE_WRITE_ERROR
    }
    return length;
}

int hk_curl_get(const char *url, const char *const *headers, size_t header_count,
                int64_t max_declared, long connect_ms, long total_ms, long tick_ms,
                const hk_curl_callbacks *callbacks, hk_curl_result *result) {
    pthread_once(&hk_curl_once, hk_curl_global);
    memset(result, 0, sizeof *result);
    result->declared = -1;
    CURL *easy = curl_easy_init();
    CURLM *multi = curl_multi_init();
    if (!easy || !multi) {
        if (easy) curl_easy_cleanup(easy);
        if (multi) curl_multi_cleanup(multi);
        strncpy(result->message, "libcurl could not start a transfer", sizeof result->message - 1);
        return CURLE_FAILED_INIT;
    }
    struct curl_slist *list = NULL;
    for (size_t i = 0; i < header_count; i++) list = curl_slist_append(list, headers[i]);
    hk_curl_state state = { easy, callbacks, 0, 0 };
    char error[CURL_ERROR_SIZE] = "";

    curl_easy_setopt(easy, CURLOPT_URL, url);
    curl_easy_setopt(easy, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(easy, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(easy, CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt(easy, CURLOPT_MAXREDIRS, 10L);
    curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(easy, CURLOPT_ACCEPT_ENCODING, "");
    curl_easy_setopt(easy, CURLOPT_HTTPHEADER, list);
    curl_easy_setopt(easy, CURLOPT_ERRORBUFFER, error);
    if (max_declared > 0) curl_easy_setopt(easy, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)max_declared);
    if (connect_ms > 0) curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS, connect_ms);
    if (total_ms > 0) curl_easy_setopt(easy, CURLOPT_TIMEOUT_MS, total_ms);
    curl_easy_setopt(easy, CURLOPT_HEADERFUNCTION, hk_on_header);
    curl_easy_setopt(easy, CURLOPT_HEADERDATA, &state);
    curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, hk_on_body);
    curl_easy_setopt(easy, CURLOPT_WRITEDATA, &state);
    curl_multi_add_handle(multi, easy);

    // One transfer on the multi interface: read what the socket has (the callbacks above run
    // synchronously in curl_multi_perform), tick, wait at most tick_ms for more.
    CURLcode code = CURLE_OK;
    int running = 1;
    while (running) {
        if (curl_multi_perform(multi, &running) != CURLM_OK) { code = CURLE_RECV_ERROR; break; }
        if (!running) break;
        if (state.stopped || !callbacks->tick(callbacks->context)) { state.stopped = 1; break; }
        if (curl_multi_poll(multi, NULL, 0, (int)tick_ms, NULL) != CURLM_OK) { code = CURLE_RECV_ERROR; break; }
    }
    if (!running) {
        int left = 0;
        CURLMsg *message;
        while ((message = curl_multi_info_read(multi, &left))) {
            if (message->msg == CURLMSG_DONE && message->easy_handle == easy) code = message->data.result;
        }
    }
    if (code == CURLE_OK && !state.stopped && !hk_respond(&state)) state.stopped = 1;
    if (state.stopped) code = CURLE_ABORTED_BY_CALLBACK;
    curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &result->status);
    curl_off_t declared = -1;
    if (curl_easy_getinfo(easy, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &declared) == CURLE_OK) result->declared = declared;
    if (code != CURLE_OK) {
        const char *text = error[0] ? error : curl_easy_strerror(code);
        strncpy(result->message, text, sizeof result->message - 1);
    }
    curl_multi_remove_handle(multi, easy);
    curl_slist_free_all(list);
    curl_easy_cleanup(easy);
    curl_multi_cleanup(multi);
    return (int)code;
}
#endif
