#ifndef BMV_CSECRET_SHIM_H
#define BMV_CSECRET_SHIM_H
#include <libsecret/secret.h>

/* The one schema bmvault stores items under: a vault key, found by its vault id. */
static inline const SecretSchema *bmv_vault_key_schema(void) {
    static const SecretSchema schema = {
        "org.bmvault.VaultKey", SECRET_SCHEMA_NONE,
        {
            { "vault-id", SECRET_SCHEMA_ATTRIBUTE_STRING },
            { NULL, 0 },
        }
    };
    return &schema;
}

/* An attribute table that owns copies of its strings: libsecret reads them after
   the Swift call that built them has returned, so borrowed pointers would dangle. */
static inline GHashTable *bmv_attributes_new(void) {
    return g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
}

static inline void bmv_attributes_insert(GHashTable *table, const char *key, const char *value) {
    g_hash_table_insert(table, g_strdup(key), g_strdup(value));
}

static inline void bmv_hash_table_unref(GHashTable *table) { g_hash_table_unref(table); }
static inline void bmv_object_unref(gpointer object) { g_object_unref(object); }
static inline GQuark bmv_io_error_quark(void) { return g_io_error_quark(); }
static inline GQuark bmv_dbus_error_quark(void) { return g_dbus_error_quark(); }

/* Keystore helpers. SecretItem and SecretCollection are GDBusProxy subclasses; Swift cannot
   apply the G_DBUS_PROXY cast macro, so the object path is read here. */
static inline const char *bmv_item_object_path(SecretItem *item) {
    return g_dbus_proxy_get_object_path(G_DBUS_PROXY(item));
}
static inline const char *bmv_collection_object_path(SecretCollection *collection) {
    return g_dbus_proxy_get_object_path(G_DBUS_PROXY(collection));
}
/* Frees a list of GObjects returned (transfer full) by libsecret, such as search results. */
static inline void bmv_object_list_free(GList *list) { g_list_free_full(list, g_object_unref); }
static inline GQuark bmv_secret_error_quark(void) { return secret_error_get_quark(); }
#endif
