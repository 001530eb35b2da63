#ifndef BMVAULT_CSECRET_SHIM_H
#define BMVAULT_CSECRET_SHIM_H

#include <libsecret/secret.h>

/* bmvault's schema, as every bmvault release has written it: items carry `vault-id` and
 * libsecret's `xdg:schema` = "org.bmvault.VaultKey". A static inside a function, so the
 * struct (with its fixed-size attribute array) need not be built from Swift. */
static inline const SecretSchema *bmvault_vault_key_schema(void) {
    static const SecretSchema schema = {
        "org.bmvault.VaultKey", SECRET_SCHEMA_NONE,
        { { "vault-id", SECRET_SCHEMA_ATTRIBUTE_STRING }, { NULL, 0 } }
    };
    return &schema;
}

/* The attributes that find a vault's items. The table owns copies of both strings: a pointer
 * Swift lends for the length of a call may be dead by the time libsecret reads it. */
static inline GHashTable *bmvault_vault_attributes(const char *vault_id) {
    GHashTable *attributes = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    g_hash_table_insert(attributes, g_strdup("vault-id"), g_strdup(vault_id));
    return attributes;
}

/* The schema of a WebDAV remote's password: items carry `vault-id` and `remote` (the
 * remote's name in that vault), with `xdg:schema` = "org.bmvault.RemotePassword". */
static inline const SecretSchema *bmvault_remote_password_schema(void) {
    static const SecretSchema schema = {
        "org.bmvault.RemotePassword", SECRET_SCHEMA_NONE,
        { { "vault-id", SECRET_SCHEMA_ATTRIBUTE_STRING }, { "remote", SECRET_SCHEMA_ATTRIBUTE_STRING }, { NULL, 0 } }
    };
    return &schema;
}

/* The attributes that find a remote's password, copied as above. */
static inline GHashTable *bmvault_remote_attributes(const char *vault_id, const char *remote) {
    GHashTable *attributes = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    g_hash_table_insert(attributes, g_strdup("vault-id"), g_strdup(vault_id));
    g_hash_table_insert(attributes, g_strdup("remote"), g_strdup(remote));
    return attributes;
}

/* The D-Bus object path of a libsecret proxy (a collection or an item). G_DBUS_PROXY is a
 * macro Swift cannot call. */
static inline const char *bmvault_object_path(gpointer proxy) {
    return g_dbus_proxy_get_object_path(G_DBUS_PROXY(proxy));
}

/* The object path an alias ("session", "default") points at, or NULL when the alias is unset
 * (or on error). One ReadAlias call on the service proxy through GDBus, without making a
 * collection proxy (libsecret's own path-returning call is not part of its stable API). */
static inline gchar *bmvault_read_alias(SecretService *service, const char *alias,
                                        GCancellable *cancellable, GError **error) {
    GVariant *reply = g_dbus_proxy_call_sync(G_DBUS_PROXY(service), "ReadAlias", g_variant_new("(s)", alias),
                                             G_DBUS_CALL_FLAGS_NONE, -1, cancellable, error);
    if (reply == NULL) return NULL;
    if (!g_variant_is_of_type(reply, G_VARIANT_TYPE("(o)"))) {   /* a provider that answers oddly: no alias */
        g_variant_unref(reply);
        return NULL;
    }
    const gchar *path = NULL;
    g_variant_get(reply, "(&o)", &path);
    gchar *result = g_strcmp0(path, "/") == 0 ? NULL : g_strdup(path);
    g_variant_unref(reply);
    return result;
}

/* A SecretValue holding a copy of `length` bytes (libsecret copies them into its secure
 * memory); an empty secret may come with a NULL pointer. */
static inline SecretValue *bmvault_secret_value_new(const void *bytes, size_t length, const char *content_type) {
    return secret_value_new(length == 0 ? "" : (const gchar *)bytes, (gssize)length, content_type);
}

/* GIO's error domain, a function-like macro in C. */
static inline GQuark bmvault_io_error_quark(void) { return G_IO_ERROR; }

#endif
