#ifndef CSOUP_SHIM_H
#define CSOUP_SHIM_H
// libsoup 3 and GLib alone, for HybridServer: the package server links no browser engine.
#include <libsoup/soup.h>
#include <glib-unix.h>

/// g_signal_connect_data, which Swift cannot call through the G_CALLBACK macro.
static inline gulong hk_soup_signal_connect(gpointer instance, const char *signal, const void *callback, gpointer data,
                                            GClosureNotify destroy, gboolean after) {
    return g_signal_connect_data(instance, signal, (GCallback)callback, data, destroy,
                                 after ? G_CONNECT_AFTER : (GConnectFlags)0);
}
#endif
