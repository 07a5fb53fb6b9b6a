#ifdef __linux__
#include "hybrid_gtk_shim.h"
#include <gdk/x11/gdkx.h>
#include <X11/Xlib.h>
// gio-unix-2.0 headers are outside webkitgtk-6.0's include path; the symbol is in libgio.
GInputStream *g_unix_input_stream_new(gint fd, gboolean close_fd);
#include <sys/eventfd.h>
#include <unistd.h>
#include <fcntl.h>

// libdispatch exports these for CoreFoundation's run loop; Swift's MainActor is the main queue.
extern int _dispatch_get_main_queue_handle_4CF(void);
extern void _dispatch_main_queue_callback_4CF(void *msg);

WebKitWebView *hk_web_view_new(WebKitWebContext *context, WebKitNetworkSession *session,
                                             WebKitUserContentManager *manager, WebKitSettings *settings,
                                             WebKitAutoplayPolicy autoplay) {
    WebKitWebsitePolicies *policies = webkit_website_policies_new_with_policies("autoplay", autoplay, NULL);
    WebKitWebView *view = WEBKIT_WEB_VIEW(g_object_new(WEBKIT_TYPE_WEB_VIEW,
                                                       "web-context", context,
                                                       "network-session", session,
                                                       "user-content-manager", manager,
                                                       "settings", settings,
                                                       "website-policies", policies,
                                                       NULL));
    g_object_unref(policies);
    return view;
}

WebKitWebContext *hk_web_context_new(void) {
    return WEBKIT_WEB_CONTEXT(g_object_new(WEBKIT_TYPE_WEB_CONTEXT, NULL));
}

static void hk_dispatch_drain_main_queue(void) {
    // Read the eventfd first: otherwise the source stays ready and starves WebKit's sources.
    eventfd_t value;
    eventfd_read(_dispatch_get_main_queue_handle_4CF(), &value);
    _dispatch_main_queue_callback_4CF(NULL);
}

static gboolean hk_dispatch_source_cb(gint fd, GIOCondition condition, gpointer data) {
    (void)fd; (void)condition; (void)data;
    hk_dispatch_drain_main_queue();
    return G_SOURCE_CONTINUE;
}

guint hk_attach_dispatch_main_queue_source(GMainContext *context) {
    GSource *source = g_unix_fd_source_new(_dispatch_get_main_queue_handle_4CF(), G_IO_IN);
    g_source_set_callback(source, (GSourceFunc)(void (*)(void))hk_dispatch_source_cb, NULL, NULL);
    guint id = g_source_attach(source, context);
    g_source_unref(source);
    return id;
}

GInputStream *hk_pipe_input_stream(int *write_fd, GError **error) {
    int fds[2];
    if (!g_unix_open_pipe(fds, FD_CLOEXEC, error)) return NULL;
    *write_fd = fds[1];
    return g_unix_input_stream_new(fds[0], TRUE);
}

GtkWidget *hk_widget(gpointer instance) { return GTK_WIDGET(instance); }
GtkWindow *hk_window(gpointer instance) { return GTK_WINDOW(instance); }

gulong hk_signal_connect(gpointer instance, const char *signal, const void *callback, gpointer data,
                         GClosureNotify destroy, gboolean after) {
    return g_signal_connect_data(instance, signal, G_CALLBACK(callback), data, destroy,
                                 after ? G_CONNECT_AFTER : (GConnectFlags)0);
}

const char *hk_display_name(void) {
    const char *wayland = g_getenv("WAYLAND_DISPLAY");
    if (wayland && *wayland) return wayland;
    const char *x11 = g_getenv("DISPLAY");
    if (x11 && *x11) return x11;
    return NULL;
}

// A pooled view parks off-screen but mapped: WebKit keeps rendering it, so showing it again needs
// no new drawing surface and no wait for the web process's first frame (GTK 4 has no window
// positions; on X11 the window can still be moved).
static Window hk_x11_window(GtkWidget *window, Display **display) {
    GdkSurface *surface = gtk_native_get_surface(GTK_NATIVE(window));
    if (!surface || !GDK_IS_X11_SURFACE(surface)) return None;
    *display = gdk_x11_display_get_xdisplay(gdk_surface_get_display(surface));
    return gdk_x11_surface_get_xid(surface);
}

gboolean hk_window_x11_position(GtkWidget *window, int *x, int *y) {
    Display *display = NULL;
    Window xid = hk_x11_window(window, &display);
    XWindowAttributes attributes;
    if (xid == None || !XGetWindowAttributes(display, xid, &attributes)) return FALSE;
    *x = attributes.x;
    *y = attributes.y;
    return TRUE;
}

gboolean hk_window_x11_move(GtkWidget *window, int x, int y) {
    Display *display = NULL;
    Window xid = hk_x11_window(window, &display);
    if (xid == None) return FALSE;
    XMoveWindow(display, xid, x, y);
    XFlush(display);
    return TRUE;
}
#endif
