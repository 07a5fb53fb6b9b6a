#ifdef __linux__
#include "hybrid_curl_shim.h"
#include <curl/curl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static pthread_once_t hk_curl_once = PTHREAD_ONCE_INIT;
static void hk_curl_global(void) { curl_global_init(CURL_GLOBAL_DEFAULT); }

struct hk_curl_share {
    CURLSH *handle;
    pthread_mutex_t locks[CURL_LOCK_DATA_LAST];
};

static void hk_share_lock(CURL *easy, curl_lock_data data, curl_lock_access access, void *user) {
    (void)easy; (void)access;
    hk_curl_share *share = user;
    if (data < CURL_LOCK_DATA_LAST) pthread_mutex_lock(&share->locks[data]);
}

static void hk_share_unlock(CURL *easy, curl_lock_data data, void *user) {
    (void)easy;
    hk_curl_share *share = user;
    if (data < CURL_LOCK_DATA_LAST) pthread_mutex_unlock(&share->locks[data]);
}

hk_curl_share *hk_curl_share_new(void) {
    pthread_once(&hk_curl_once, hk_curl_global);
    hk_curl_share *share = calloc(1, sizeof *share);
    if (!share) return NULL;
    share->handle = curl_share_init();
    if (!share->handle) { free(share); return NULL; }
    for (int i = 0; i < CURL_LOCK_DATA_LAST; i++) pthread_mutex_init(&share->locks[i], NULL);
    curl_share_setopt(share->handle, CURLSHOPT_LOCKFUNC, hk_share_lock);
    curl_share_setopt(share->handle, CURLSHOPT_UNLOCKFUNC, hk_share_unlock);
    curl_share_setopt(share->handle, CURLSHOPT_USERDATA, share);
    curl_share_setopt(share->handle, CURLSHOPT_SHARE, CURL_LOCK_DATA_CONNECT);
    curl_share_setopt(share->handle, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
    curl_share_setopt(share->handle, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
    return share;
}

void hk_curl_share_free(hk_curl_share *share) {
    if (!share) return;
    curl_share_cleanup(share->handle);
    for (int i = 0; i < CURL_LOCK_DATA_LAST; i++) pthread_mutex_destroy(&share->locks[i]);
    free(share);
}

hk_curl_multi *hk_curl_multi_new(void) {
    pthread_once(&hk_curl_once, hk_curl_global);
    return (hk_curl_multi *)curl_multi_init();
}

void hk_curl_multi_free(hk_curl_multi *multi) {
    if (multi) curl_multi_cleanup((CURLM *)multi);
}

void hk_curl_multi_wake(hk_curl_multi *multi) {
    if (multi) curl_multi_wakeup((CURLM *)multi);
}

typedef struct hk_curl_state {
    CURL *easy;
    const hk_curl_callbacks *callbacks;
    int follow;
    int responded;
    int stopped;
    int64_t reported_sent;
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
    if (state->responded) return length;  // trailers: the head was handed over already
    if (!state->callbacks->header(state->callbacks->context, line, length)) { state->stopped = 1; return 0; }
    // Without redirects followed, the head is over at its blank line (unless it was an interim
    // 1xx): the response goes out then, before any body byte, however long the body takes.
    if (!state->follow && (length == 2 || length == 1) && (line[0] == '\r' || line[0] == '\n')) {
        long status = 0;
        curl_easy_getinfo(state->easy, CURLINFO_RESPONSE_CODE, &status);
        if (status >= 200 && !hk_respond(state)) { state->stopped = 1; return 0; }
    }
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

static size_t hk_on_read(char *buffer, size_t size, size_t count, void *user) {
    hk_curl_state *state = user;
    long got = state->callbacks->read(state->callbacks->context, buffer, size * count);
    if (got < 0) { state->stopped = 1; return CURL_READFUNC_ABORT; }
    return (size_t)got;
}

static int hk_on_progress(void *user, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow) {
    (void)dltotal; (void)dlnow;
    hk_curl_state *state = user;
    if (ulnow != state->reported_sent) {
        state->reported_sent = ulnow;
        state->callbacks->sent(state->callbacks->context, ulnow, ultotal);
    }
    return 0;
}

int hk_curl_perform(const hk_curl_request *request, const hk_curl_callbacks *callbacks, hk_curl_result *result) {
    pthread_once(&hk_curl_once, hk_curl_global);
    memset(result, 0, sizeof *result);
    result->declared = -1;
    CURL *easy = curl_easy_init();
    CURLM *multi = request->multi ? (CURLM *)request->multi : curl_multi_init();
    if (!easy || !multi) {
        if (easy) curl_easy_cleanup(easy);
        if (multi && !request->multi) curl_multi_cleanup(multi);
        strncpy(result->message, "libcurl could not start a transfer", sizeof result->message - 1);
        return CURLE_FAILED_INIT;
    }
    struct curl_slist *list = NULL;
    for (size_t i = 0; i < request->header_count; i++) list = curl_slist_append(list, request->headers[i]);
    hk_curl_state state = { easy, callbacks, request->follow_redirects != 0, 0, 0, 0 };
    char error[CURL_ERROR_SIZE] = "";

    curl_easy_setopt(easy, CURLOPT_URL, request->url);
    curl_easy_setopt(easy, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(easy, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    if (request->follow_redirects) {
        curl_easy_setopt(easy, CURLOPT_FOLLOWLOCATION, 1L);
        curl_easy_setopt(easy, CURLOPT_MAXREDIRS, 10L);
    }
    curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(easy, CURLOPT_ACCEPT_ENCODING, "");
    curl_easy_setopt(easy, CURLOPT_HTTPHEADER, list);
    curl_easy_setopt(easy, CURLOPT_ERRORBUFFER, error);
    if (request->share) curl_easy_setopt(easy, CURLOPT_SHARE, request->share->handle);
    if (request->receive_buffer > 0) curl_easy_setopt(easy, CURLOPT_BUFFERSIZE, request->receive_buffer);
    if (request->send_buffer > 0) curl_easy_setopt(easy, CURLOPT_UPLOAD_BUFFERSIZE, request->send_buffer);
    const char *method = request->method ? request->method : "GET";
    if (strcmp(method, "HEAD") == 0) {
        curl_easy_setopt(easy, CURLOPT_NOBODY, 1L);
    } else if (request->body_size >= 0) {
        // A body goes as a POST's, under the method asked for.
        curl_easy_setopt(easy, CURLOPT_POST, 1L);
        curl_easy_setopt(easy, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)request->body_size);
        if (request->body) {
            curl_easy_setopt(easy, CURLOPT_POSTFIELDS, request->body);
        } else {
            curl_easy_setopt(easy, CURLOPT_READFUNCTION, hk_on_read);
            curl_easy_setopt(easy, CURLOPT_READDATA, &state);
        }
        if (strcmp(method, "POST") != 0) curl_easy_setopt(easy, CURLOPT_CUSTOMREQUEST, method);
    } else if (strcmp(method, "GET") != 0) {
        curl_easy_setopt(easy, CURLOPT_CUSTOMREQUEST, method);
    }
    if (callbacks->sent) {
        curl_easy_setopt(easy, CURLOPT_NOPROGRESS, 0L);
        curl_easy_setopt(easy, CURLOPT_XFERINFOFUNCTION, hk_on_progress);
        curl_easy_setopt(easy, CURLOPT_XFERINFODATA, &state);
    }
    if (request->max_declared > 0) curl_easy_setopt(easy, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)request->max_declared);
    if (request->connect_ms > 0) curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS, request->connect_ms);
    if (request->total_ms > 0) curl_easy_setopt(easy, CURLOPT_TIMEOUT_MS, request->total_ms);
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
        if (curl_multi_poll(multi, NULL, 0, (int)request->tick_ms, NULL) != CURLM_OK) { code = CURLE_RECV_ERROR; break; }
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
    if (!request->multi) curl_multi_cleanup(multi);
    return (int)code;
}

int hk_curl_get(const char *url, const char *const *headers, size_t header_count,
                int64_t max_declared, long connect_ms, long total_ms, long tick_ms,
                const hk_curl_callbacks *callbacks, hk_curl_result *result) {
    hk_curl_request request = {
        .url = url, .method = NULL, .headers = headers, .header_count = header_count,
        .body = NULL, .body_size = -1, .follow_redirects = 1, .max_declared = max_declared,
        .connect_ms = connect_ms, .total_ms = total_ms, .tick_ms = tick_ms,
        .receive_buffer = 0, .send_buffer = 0, .share = NULL, .multi = NULL,
    };
    return hk_curl_perform(&request, callbacks, result);
}
#endif
