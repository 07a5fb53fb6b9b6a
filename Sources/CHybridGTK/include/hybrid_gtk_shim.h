#ifndef HYBRID_GTK_SHIM_H
#define HYBRID_GTK_SHIM_H
// The C that Swift cannot write: variadic constructors, GObject cast/type macros and the
// libdispatch main-queue hooks that let GLib's main loop drain Swift's MainActor.
// Every symbol is prefixed `hk_`. Keep this file tiny: types become safe in Swift.
#ifdef __linux__
#include <webkit/webkit.h>
#include <gtk/gtk.h>
#include <libsoup/soup.h>
#include <glib-unix.h>

/// g_object_new(WEBKIT_TYPE_WEB_VIEW, ...) with the construct-only properties of 6.0, including
/// the view's autoplay policy (a construct-only website policy).
WebKitWebView *hk_web_view_new(WebKitWebContext *context, WebKitNetworkSession *session,
                               WebKitUserContentManager *manager, WebKitSettings *settings,
                               WebKitAutoplayPolicy autoplay);
/// g_object_new(WEBKIT_TYPE_WEB_CONTEXT, ...) — a context that never shares processes
/// with another context (one process pool).
WebKitWebContext *hk_web_context_new(void);

/// Adds a GLib source that drains Swift's main queue whenever libdispatch signals it.
guint hk_attach_dispatch_main_queue_source(GMainContext *context);

/// A GInputStream reading the read end of a fresh pipe; *write_fd receives the write end.
/// Returns NULL (and sets *error) when the pipe cannot be made.
GInputStream *hk_pipe_input_stream(int *write_fd, GError **error);

/// GObject casts, as functions (Swift cannot expand the macros).
GtkWidget *hk_widget(gpointer instance);
GtkWindow *hk_window(gpointer instance);

/// g_signal_connect_data with any C function pointer (Swift passes a typed @convention(c) fn).
gulong hk_signal_connect(gpointer instance, const char *signal, const void *callback, gpointer data,
                         GClosureNotify destroy, gboolean after);

/// The position of a realized X11 toplevel in its parent; FALSE (nothing written) when the
/// window is not on X11 or not realized.
gboolean hk_window_x11_position(GtkWidget *window, int *x, int *y);
/// Moves a realized X11 toplevel to (x, y) in its parent; FALSE when not on X11 or not realized.
gboolean hk_window_x11_move(GtkWidget *window, int x, int y);

/// The Xlib / Wayland display GTK would open, NULL when none.
const char *hk_display_name(void);
#endif
#endif

