# Varnish in front of a HybridKit package repository (docs/offline-packages.md, "Serving at scale").
# The lifetimes are the origin's (RepositoryCaching: `hybrid serve`, or nginx with hybrid-repo.conf):
# blobs, patches and manifests `public, max-age=31536000, immutable`; pointers, rollout documents,
# index, key rotations and config `public, max-age=60` with ETag/Last-Modified. Tested by
# `hybrid bench rollout` (scripts/cdn-tests.sh in `make test`), which replaces the backend's port.
vcl 4.1;

backend origin {
    .host = "127.0.0.1";
    .port = "8080";
}

# Who may purge a document after publishing it (a halt then reaches installs at once, not after max-age).
acl purgers {
    "127.0.0.1";
    "::1";
}

sub vcl_recv {
    if (req.method == "PURGE") {
        if (client.ip !~ purgers) {
            return (synth(405, "purge not allowed"));
        }
        return (purge);
    }
    if (req.method != "GET" && req.method != "HEAD") {
        return (pass);
    }
    # The repository is public and the same for everyone: nothing a client sends varies it,
    # so a cookie or a credential must not turn every request into a pass to the origin.
    unset req.http.Cookie;
    unset req.http.Authorization;
    # The updater asks past the edge's copy (`Cache-Control: no-cache`) when a pointer or rollout
    # document and its signature, cached apart, do not verify together: fetch both afresh (and keep
    # the fresh copies for everyone). Only those short-lived documents: nobody bypasses the cache
    # of the immutable objects.
    if (req.http.Cache-Control ~ "no-cache" && req.url ~ "/(latest|rollout)\.json(\.sig)?$") {
        set req.hash_always_miss = true;
    }
    return (hash);
}

sub vcl_backend_response {
    # Keep an expired pointer an hour, so the next fetch is a conditional one (If-None-Match → 304,
    # no body) instead of a full download; serve it up to 10 s stale while that fetch runs.
    set beresp.grace = 10s;
    set beresp.keep = 1h;
}
