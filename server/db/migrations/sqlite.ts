/**
 * Versioned migrations, applied in order at start (PRAGMA user_version holds the version).
 * Never edit a released migration: append a new one.
 */
export const MIGRATIONS: readonly string[] = [
  // 1: the whole initial schema
  `
  CREATE TABLE operators (
    id TEXT PRIMARY KEY,
    email TEXT NOT NULL,
    email_key TEXT NOT NULL UNIQUE,          -- lower-cased e-mail
    password_hash TEXT NOT NULL,
    password_version INTEGER NOT NULL DEFAULT 1, -- bumped on change; tokens carry it as pwv
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );

  CREATE TABLE firmwares (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    size INTEGER NOT NULL,
    sha256 TEXT NOT NULL,
    created_at TEXT NOT NULL
  );
  CREATE INDEX firmwares_created ON firmwares(created_at DESC, id);

  CREATE TABLE device_types (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    default_firmware TEXT REFERENCES firmwares(id) ON DELETE RESTRICT
  );
  CREATE INDEX device_types_default_firmware ON device_types(default_firmware);

  CREATE TABLE treatments (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,                -- list order; import matches on it
    category TEXT,
    use TEXT,
    phases TEXT NOT NULL DEFAULT '[]',        -- JSON Phase[] (validated on write)
    image_ids TEXT NOT NULL DEFAULT '[]',     -- JSON string[] in image order
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );

  CREATE TABLE treatment_images (
    id TEXT PRIMARY KEY,
    treatment_id TEXT NOT NULL REFERENCES treatments(id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    mime_type TEXT NOT NULL,
    data BLOB NOT NULL
  );
  CREATE INDEX treatment_images_treatment ON treatment_images(treatment_id, position);

  CREATE TABLE product_types (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    name_key TEXT NOT NULL UNIQUE,            -- lower-cased name: unique case-insensitively
    theme TEXT NOT NULL DEFAULT '{}',         -- JSON object
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );
  CREATE INDEX product_types_name ON product_types(name, id);

  CREATE TABLE modules (
    id TEXT PRIMARY KEY,
    product_type_id TEXT NOT NULL REFERENCES product_types(id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    name TEXT NOT NULL,
    is_default INTEGER NOT NULL DEFAULT 0
  );
  CREATE INDEX modules_product_type ON modules(product_type_id, position);

  CREATE TABLE module_treatments (
    module_id TEXT NOT NULL REFERENCES modules(id) ON DELETE CASCADE,
    treatment_id TEXT NOT NULL REFERENCES treatments(id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    PRIMARY KEY (module_id, treatment_id)
  ) WITHOUT ROWID;
  CREATE INDEX module_treatments_treatment ON module_treatments(treatment_id);

  CREATE TABLE devices (
    device_id TEXT PRIMARY KEY,               -- list order
    product_type_id TEXT REFERENCES product_types(id) ON DELETE SET NULL,
    firmware_id TEXT REFERENCES firmwares(id) ON DELETE RESTRICT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    last_logged_in TEXT,
    version_info TEXT                         -- JSON VersionInfo or NULL
  ) WITHOUT ROWID;
  CREATE INDEX devices_product_type ON devices(product_type_id);
  CREATE INDEX devices_firmware ON devices(firmware_id);

  CREATE TABLE device_modules (
    device_id TEXT NOT NULL REFERENCES devices(device_id) ON DELETE CASCADE,
    module_id TEXT NOT NULL REFERENCES modules(id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    PRIMARY KEY (device_id, module_id)
  ) WITHOUT ROWID;
  CREATE INDEX device_modules_module ON device_modules(module_id);

  CREATE TABLE device_treatments (
    device_id TEXT NOT NULL REFERENCES devices(device_id) ON DELETE CASCADE,
    treatment_id TEXT NOT NULL REFERENCES treatments(id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    PRIMARY KEY (device_id, treatment_id)
  ) WITHOUT ROWID;
  CREATE INDEX device_treatments_treatment ON device_treatments(treatment_id);
  `,
  // 2: a narrow index over device ids, so paging walks ~20-byte entries instead of whole device rows
  `CREATE INDEX devices_order ON devices(device_id);`,
  // 3: change counters, bumped by triggers in the writing transaction whichever connection or process writes, so a
  // cache versioned by one (the devices list) sees every write; foreign-key cascades fire the triggers too
  `
  CREATE TABLE change_counters (
    name TEXT PRIMARY KEY,
    value INTEGER NOT NULL
  ) WITHOUT ROWID;
  INSERT INTO change_counters (name, value) VALUES ('devices', 0);
  CREATE TRIGGER devices_insert_counted AFTER INSERT ON devices
    BEGIN UPDATE change_counters SET value = value + 1 WHERE name = 'devices'; END;
  CREATE TRIGGER devices_update_counted AFTER UPDATE ON devices
    BEGIN UPDATE change_counters SET value = value + 1 WHERE name = 'devices'; END;
  CREATE TRIGGER devices_delete_counted AFTER DELETE ON devices
    BEGIN UPDATE change_counters SET value = value + 1 WHERE name = 'devices'; END;
  CREATE TRIGGER device_modules_insert_counted AFTER INSERT ON device_modules
    BEGIN UPDATE change_counters SET value = value + 1 WHERE name = 'devices'; END;
  CREATE TRIGGER device_modules_update_counted AFTER UPDATE ON device_modules
    BEGIN UPDATE change_counters SET value = value + 1 WHERE name = 'devices'; END;
  CREATE TRIGGER device_modules_delete_counted AFTER DELETE ON device_modules
    BEGIN UPDATE change_counters SET value = value + 1 WHERE name = 'devices'; END;
  CREATE TRIGGER device_treatments_insert_counted AFTER INSERT ON device_treatments
    BEGIN UPDATE change_counters SET value = value + 1 WHERE name = 'devices'; END;
  CREATE TRIGGER device_treatments_update_counted AFTER UPDATE ON device_treatments
    BEGIN UPDATE change_counters SET value = value + 1 WHERE name = 'devices'; END;
  CREATE TRIGGER device_treatments_delete_counted AFTER DELETE ON device_treatments
    BEGIN UPDATE change_counters SET value = value + 1 WHERE name = 'devices'; END;
  `,
  // 4: sign-in throttling, shared by every process on the database: attempts per (scope, e-mail, address), an
  // e-mail's ceiling count under the address '*', and the addresses each e-mail signed in from
  `
  CREATE TABLE login_attempts (
    scope TEXT NOT NULL,
    email_key TEXT NOT NULL,
    address TEXT NOT NULL,
    attempts INTEGER NOT NULL,
    first_at TEXT NOT NULL,
    last_at TEXT NOT NULL,
    PRIMARY KEY (scope, email_key, address)
  ) WITHOUT ROWID;
  CREATE INDEX login_attempts_last ON login_attempts(last_at);

  CREATE TABLE login_addresses (
    email_key TEXT NOT NULL,
    address TEXT NOT NULL,
    last_success_at TEXT NOT NULL,
    PRIMARY KEY (email_key, address)
  ) WITHOUT ROWID;
  CREATE INDEX login_addresses_last ON login_addresses(last_success_at);
  `,
  // 5: revisions of devices, product types and device types (their ETag, checked against If-Match). Values come from
  // one growing sequence (the 'revisions' counter), so an entity's tag never comes back, not even for a device deleted
  // and checked in again. A new row draws one here; the stores draw the next one with every change, in the writing
  // transaction. Rows of earlier releases start at 0.
  `
  ALTER TABLE devices ADD COLUMN revision INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE product_types ADD COLUMN revision INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE device_types ADD COLUMN revision INTEGER NOT NULL DEFAULT 0;
  INSERT INTO change_counters (name, value) VALUES ('revisions', 0);
  CREATE TRIGGER devices_insert_revision AFTER INSERT ON devices BEGIN
    UPDATE change_counters SET value = value + 1 WHERE name = 'revisions';
    UPDATE devices SET revision = (SELECT value FROM change_counters WHERE name = 'revisions')
      WHERE device_id = NEW.device_id;
  END;
  CREATE TRIGGER product_types_insert_revision AFTER INSERT ON product_types BEGIN
    UPDATE change_counters SET value = value + 1 WHERE name = 'revisions';
    UPDATE product_types SET revision = (SELECT value FROM change_counters WHERE name = 'revisions')
      WHERE id = NEW.id;
  END;
  CREATE TRIGGER device_types_insert_revision AFTER INSERT ON device_types BEGIN
    UPDATE change_counters SET value = value + 1 WHERE name = 'revisions';
    UPDATE device_types SET revision = (SELECT value FROM change_counters WHERE name = 'revisions')
      WHERE id = NEW.id;
  END;
  `,
  // 6: treatment content in tables of its own (phases JSON, image bytes), so an import writes its bulk beforehand in
  // short transactions and publishes with one short transaction that only links rows (content no treatment links to
  // is removed after the import, or at start when a crash left it); the list's order as an index, so the list is
  // read in order without sorting. The old columns treatments.phases and treatment_images.data are left empty.
  `
  CREATE TABLE treatment_phases (
    id INTEGER PRIMARY KEY AUTOINCREMENT,     -- never reused: a stale id can never name another import's row
    json TEXT NOT NULL                        -- JSON Phase[] (validated on write)
  );
  INSERT INTO treatment_phases (id, json) SELECT rowid, phases FROM treatments;
  ALTER TABLE treatments ADD COLUMN phases_id INTEGER REFERENCES treatment_phases(id);
  UPDATE treatments SET phases_id = rowid, phases = '[]';
  CREATE INDEX treatments_phases ON treatments(phases_id);
  CREATE INDEX treatments_list_order ON treatments(name COLLATE NOCASE, name);

  CREATE TABLE treatment_image_data (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    data BLOB NOT NULL
  );
  INSERT INTO treatment_image_data (id, data) SELECT rowid, data FROM treatment_images;
  ALTER TABLE treatment_images ADD COLUMN data_id INTEGER REFERENCES treatment_image_data(id);
  UPDATE treatment_images SET data_id = rowid, data = x'';
  CREATE INDEX treatment_images_data ON treatment_images(data_id);
  `,
  // 7: firmwares by content, so an upload finds the bytes already stored under another name (its duplicateOf)
  `CREATE INDEX firmwares_sha256 ON firmwares(sha256);`,
  // 8: roles (the operators there before roles existed are admins) and disabled accounts
  `
  ALTER TABLE operators ADD COLUMN role TEXT NOT NULL DEFAULT 'admin' CHECK (role IN ('admin', 'operator', 'viewer'));
  ALTER TABLE operators ADD COLUMN disabled INTEGER NOT NULL DEFAULT 0;
  `,
  // 9: the audit trail (docs/DECISIONS.md, "Audit trail"): entries numbered 1, 2, 3, ... without gaps, each hashed
  // over the one before; the head row holds the last number and hash (what the next append chains to, and the total).
  `
  CREATE TABLE audit_entries (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    at TEXT NOT NULL,
    actor_type TEXT NOT NULL,
    actor_id TEXT NOT NULL,
    actor_name TEXT NOT NULL,
    action TEXT NOT NULL,
    target_type TEXT,
    target_id TEXT,
    target_name TEXT,
    details TEXT NOT NULL,
    ip TEXT,
    hash TEXT NOT NULL
  );
  CREATE INDEX audit_entries_actor_id ON audit_entries(actor_id, seq);
  CREATE INDEX audit_entries_actor_name ON audit_entries(actor_name, seq);
  CREATE INDEX audit_entries_action ON audit_entries(action, seq);
  CREATE INDEX audit_entries_target ON audit_entries(target_type, target_id, seq);
  CREATE INDEX audit_entries_target_id ON audit_entries(target_id, seq);
  CREATE INDEX audit_entries_at ON audit_entries(at);
  CREATE TABLE audit_head (
    one INTEGER PRIMARY KEY CHECK (one = 1),
    seq INTEGER NOT NULL,
    hash TEXT NOT NULL
  );
  INSERT INTO audit_head (one, seq, hash) VALUES (1, 0, '');
  `,
  // 10: device identity and admission (docs/REQUIREMENTS.md §11). Devices there before count as accepted without a token, so each
  // one's first enrolment gets a token (docs/OPERATIONS.md, "From shared to token"). token_hash: the sha256 (hex) of
  // the device's token, never the token; credentials_issued_at: when it was issued.
  `
  ALTER TABLE devices ADD COLUMN admission TEXT NOT NULL DEFAULT 'accepted'
    CHECK (admission IN ('pending', 'accepted', 'rejected'));
  ALTER TABLE devices ADD COLUMN token_hash TEXT;
  ALTER TABLE devices ADD COLUMN credentials_issued_at TEXT;
  CREATE INDEX devices_admission ON devices(admission, device_id);
  `,
  // 11: update status and staged rollouts (docs/REQUIREMENTS.md §13): a device's latest report; rollouts with their counts kept
  // incrementally (so reading one never counts its devices); one row per targeted device with its stable bucket and
  // its state in that rollout; the counts per minute for the chart. A device deleted takes its rows and its share of
  // the counts with it (trigger).
  `
  ALTER TABLE devices ADD COLUMN update_status TEXT;   -- JSON DeviceUpdate or NULL

  CREATE TABLE rollouts (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    firmware_id TEXT NOT NULL,                -- no foreign key: a finished rollout's firmware may be deleted
    product_type_id TEXT,                     -- NULL: every device
    stages TEXT NOT NULL,                     -- JSON number[]
    failure_threshold REAL NOT NULL,
    auto_advance INTEGER NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('draft', 'running', 'paused', 'finished', 'cancelled')),
    stage INTEGER NOT NULL DEFAULT -1,
    stage_percent REAL NOT NULL DEFAULT 0,    -- stages[stage], 0 before the start
    paused_reason TEXT,
    targeted INTEGER NOT NULL DEFAULT 0,
    in_stage INTEGER NOT NULL DEFAULT 0,
    downloading INTEGER NOT NULL DEFAULT 0,
    installing INTEGER NOT NULL DEFAULT 0,
    installed INTEGER NOT NULL DEFAULT 0,
    failed INTEGER NOT NULL DEFAULT 0,
    failed_accepted INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    created_by TEXT NOT NULL
  );
  CREATE INDEX rollouts_newest ON rollouts(created_at DESC, id DESC);
  CREATE INDEX rollouts_state ON rollouts(state, product_type_id);
  CREATE INDEX rollouts_firmware ON rollouts(firmware_id);

  CREATE TABLE rollout_devices (
    rollout_id TEXT NOT NULL REFERENCES rollouts(id) ON DELETE CASCADE,
    device_id TEXT NOT NULL REFERENCES devices(device_id) ON DELETE CASCADE,
    bucket REAL NOT NULL,
    state TEXT,                               -- NULL: no report yet
    progress INTEGER,
    message TEXT,
    at TEXT,
    PRIMARY KEY (rollout_id, device_id)
  ) WITHOUT ROWID;
  CREATE INDEX rollout_devices_bucket ON rollout_devices(rollout_id, bucket);
  CREATE INDEX rollout_devices_state ON rollout_devices(rollout_id, state, device_id);
  CREATE INDEX rollout_devices_device ON rollout_devices(device_id);
  CREATE TRIGGER rollout_devices_deleted AFTER DELETE ON rollout_devices BEGIN
    UPDATE rollouts SET
      targeted = targeted - 1,
      in_stage = in_stage - (OLD.bucket < stage_percent),
      downloading = downloading - (OLD.state IS 'downloading'),
      installing = installing - (OLD.state IS 'installing'),
      installed = installed - (OLD.state IS 'installed'),
      failed = failed - (OLD.state IS 'failed')
    WHERE id = OLD.rollout_id;
  END;

  CREATE TABLE rollout_history (
    rollout_id TEXT NOT NULL REFERENCES rollouts(id) ON DELETE CASCADE,
    at TEXT NOT NULL,                         -- the minute
    stage INTEGER NOT NULL,
    in_stage INTEGER NOT NULL,
    downloading INTEGER NOT NULL,
    installing INTEGER NOT NULL,
    installed INTEGER NOT NULL,
    failed INTEGER NOT NULL,
    PRIMARY KEY (rollout_id, at)
  ) WITHOUT ROWID;
  `,
  // 12: fleet views (docs/REQUIREMENTS.md §16): the app and OS versions as columns kept by triggers (an index on a virtual column
  // does not cover: every count would parse the JSON of each row), and an index per filter and sort of
  // GET devices, ordered by deviceId within its key, plus product type and firmware with each sort (a filtered,
  // sorted page is one index walk; its count one covering range)
  `
  DROP INDEX devices_product_type;
  DROP INDEX devices_firmware;
  ALTER TABLE devices ADD COLUMN app TEXT;
  ALTER TABLE devices ADD COLUMN os TEXT;
  UPDATE devices SET app = json_extract(version_info, '$.app'), os = json_extract(version_info, '$.os')
    WHERE version_info IS NOT NULL;
  CREATE TRIGGER devices_versions_insert AFTER INSERT ON devices WHEN NEW.version_info IS NOT NULL BEGIN
    UPDATE devices SET app = json_extract(NEW.version_info, '$.app'), os = json_extract(NEW.version_info, '$.os')
      WHERE device_id = NEW.device_id;
  END;
  CREATE TRIGGER devices_versions_update AFTER UPDATE OF version_info ON devices
    WHEN NEW.version_info IS NOT OLD.version_info BEGIN
    UPDATE devices SET app = json_extract(NEW.version_info, '$.app'), os = json_extract(NEW.version_info, '$.os')
      WHERE device_id = NEW.device_id;
  END;
  CREATE INDEX devices_product_type ON devices(product_type_id, device_id);
  CREATE INDEX devices_firmware ON devices(firmware_id, device_id);
  CREATE INDEX devices_last_logged_in ON devices(last_logged_in, device_id);
  CREATE INDEX devices_updated ON devices(updated_at, device_id);
  CREATE INDEX devices_created ON devices(created_at, device_id);
  CREATE INDEX devices_app ON devices(app, os, device_id);
  CREATE INDEX devices_os ON devices(os, device_id);
  CREATE INDEX devices_product_type_seen ON devices(product_type_id, last_logged_in, device_id);
  CREATE INDEX devices_product_type_updated ON devices(product_type_id, updated_at, device_id);
  CREATE INDEX devices_product_type_created ON devices(product_type_id, created_at, device_id);
  CREATE INDEX devices_product_type_app ON devices(product_type_id, app, device_id);
  CREATE INDEX devices_firmware_seen ON devices(firmware_id, last_logged_in, device_id);
  CREATE INDEX devices_firmware_updated ON devices(firmware_id, updated_at, device_id);
  CREATE INDEX devices_firmware_created ON devices(firmware_id, created_at, device_id);
  CREATE INDEX devices_firmware_app ON devices(firmware_id, app, device_id);
  -- The overview's grouped counts, kept by triggers in the writing transaction (a few rows to read, not 100,000);
  -- no OR IGNORE in the triggers: the outer statement's conflict policy would override it
  CREATE TABLE device_group_counts (
    dim TEXT NOT NULL,                        -- productType, firmware (custom) or app
    key TEXT NOT NULL,                        -- 'v:' || value, or 'none'
    n INTEGER NOT NULL,
    PRIMARY KEY (dim, key)
  ) WITHOUT ROWID;
  INSERT INTO device_group_counts (dim, key, n)
    SELECT 'productType', COALESCE('v:' || product_type_id, 'none'), COUNT(*) FROM devices GROUP BY 2;
  INSERT INTO device_group_counts (dim, key, n)
    SELECT 'firmware', COALESCE('v:' || firmware_id, 'none'), COUNT(*) FROM devices GROUP BY 2;
  INSERT INTO device_group_counts (dim, key, n)
    SELECT 'app', COALESCE('v:' || app, 'none'), COUNT(*) FROM devices GROUP BY 2;
  CREATE TRIGGER devices_group_count_insert AFTER INSERT ON devices BEGIN
    INSERT INTO device_group_counts (dim, key, n) SELECT 'productType', COALESCE('v:' || NEW.product_type_id, 'none'), 0
      WHERE NOT EXISTS (SELECT 1 FROM device_group_counts WHERE dim = 'productType' AND key = COALESCE('v:' || NEW.product_type_id, 'none'));
    UPDATE device_group_counts SET n = n + 1 WHERE dim = 'productType' AND key = COALESCE('v:' || NEW.product_type_id, 'none');
    INSERT INTO device_group_counts (dim, key, n) SELECT 'firmware', COALESCE('v:' || NEW.firmware_id, 'none'), 0
      WHERE NOT EXISTS (SELECT 1 FROM device_group_counts WHERE dim = 'firmware' AND key = COALESCE('v:' || NEW.firmware_id, 'none'));
    UPDATE device_group_counts SET n = n + 1 WHERE dim = 'firmware' AND key = COALESCE('v:' || NEW.firmware_id, 'none');
    INSERT INTO device_group_counts (dim, key, n) SELECT 'app', COALESCE('v:' || NEW.app, 'none'), 0
      WHERE NOT EXISTS (SELECT 1 FROM device_group_counts WHERE dim = 'app' AND key = COALESCE('v:' || NEW.app, 'none'));
    UPDATE device_group_counts SET n = n + 1 WHERE dim = 'app' AND key = COALESCE('v:' || NEW.app, 'none');
  END;
  CREATE TRIGGER devices_group_count_delete AFTER DELETE ON devices BEGIN
    UPDATE device_group_counts SET n = n - 1 WHERE dim = 'productType' AND key = COALESCE('v:' || OLD.product_type_id, 'none');
    UPDATE device_group_counts SET n = n - 1 WHERE dim = 'firmware' AND key = COALESCE('v:' || OLD.firmware_id, 'none');
    UPDATE device_group_counts SET n = n - 1 WHERE dim = 'app' AND key = COALESCE('v:' || OLD.app, 'none');
  END;
  CREATE TRIGGER devices_productType_count_update AFTER UPDATE OF product_type_id ON devices
    WHEN NEW.product_type_id IS NOT OLD.product_type_id BEGIN
    UPDATE device_group_counts SET n = n - 1 WHERE dim = 'productType' AND key = COALESCE('v:' || OLD.product_type_id, 'none');
    INSERT INTO device_group_counts (dim, key, n) SELECT 'productType', COALESCE('v:' || NEW.product_type_id, 'none'), 0
      WHERE NOT EXISTS (SELECT 1 FROM device_group_counts WHERE dim = 'productType' AND key = COALESCE('v:' || NEW.product_type_id, 'none'));
    UPDATE device_group_counts SET n = n + 1 WHERE dim = 'productType' AND key = COALESCE('v:' || NEW.product_type_id, 'none');
  END;
  CREATE TRIGGER devices_firmware_count_update AFTER UPDATE OF firmware_id ON devices
    WHEN NEW.firmware_id IS NOT OLD.firmware_id BEGIN
    UPDATE device_group_counts SET n = n - 1 WHERE dim = 'firmware' AND key = COALESCE('v:' || OLD.firmware_id, 'none');
    INSERT INTO device_group_counts (dim, key, n) SELECT 'firmware', COALESCE('v:' || NEW.firmware_id, 'none'), 0
      WHERE NOT EXISTS (SELECT 1 FROM device_group_counts WHERE dim = 'firmware' AND key = COALESCE('v:' || NEW.firmware_id, 'none'));
    UPDATE device_group_counts SET n = n + 1 WHERE dim = 'firmware' AND key = COALESCE('v:' || NEW.firmware_id, 'none');
  END;
  CREATE TRIGGER devices_app_count_update AFTER UPDATE OF app ON devices
    WHEN NEW.app IS NOT OLD.app BEGIN
    UPDATE device_group_counts SET n = n - 1 WHERE dim = 'app' AND key = COALESCE('v:' || OLD.app, 'none');
    INSERT INTO device_group_counts (dim, key, n) SELECT 'app', COALESCE('v:' || NEW.app, 'none'), 0
      WHERE NOT EXISTS (SELECT 1 FROM device_group_counts WHERE dim = 'app' AND key = COALESCE('v:' || NEW.app, 'none'));
    UPDATE device_group_counts SET n = n + 1 WHERE dim = 'app' AND key = COALESCE('v:' || NEW.app, 'none');
  END;
  `,
  // 13: API tokens (docs/REQUIREMENTS.md §12): only the sha256 of each secret is kept; a token goes with its owner's row
  `
  CREATE TABLE api_tokens (
    id TEXT PRIMARY KEY,
    owner_id TEXT NOT NULL REFERENCES operators(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    scopes TEXT NOT NULL,                    -- space-separated scope names
    secret_hash TEXT NOT NULL UNIQUE,        -- hex sha256 of the secret
    created_at TEXT NOT NULL,
    expires_at TEXT,
    last_used_at TEXT
  );
  CREATE INDEX api_tokens_owner ON api_tokens(owner_id, created_at);
  `,
  // 14: the audit actor filter matches the actor's name only (docs/DECISIONS.md, "Audit trail"): the id index goes
  `DROP INDEX IF EXISTS audit_entries_actor_id;`,
  // 15: the devices list's update-state filter (docs/REQUIREMENTS.md §13's Device.update; issue 20): an index on the latest report's
  // state, so the filter is an index range like the others
  `CREATE INDEX devices_update_state ON devices(json_extract(update_status, '$.state'), device_id);`,
  // 16: fleet views (PostgreSQL's migration 10): filters an index does not order by are checked in the index — the last
  // check-in after the product type and firmware sorts' keys, the app and OS versions after the time sorts' — and the
  // devices with a custom firmware (few) have an index per sort of their own
  `
  DROP INDEX devices_product_type_updated;
  DROP INDEX devices_product_type_created;
  DROP INDEX devices_product_type_app;
  DROP INDEX devices_firmware_updated;
  DROP INDEX devices_firmware_created;
  DROP INDEX devices_firmware_app;
  DROP INDEX devices_updated;
  DROP INDEX devices_created;
  DROP INDEX devices_last_logged_in;
  CREATE INDEX devices_product_type_updated ON devices(product_type_id, updated_at, device_id, last_logged_in);
  CREATE INDEX devices_product_type_created ON devices(product_type_id, created_at, device_id, last_logged_in);
  CREATE INDEX devices_product_type_app ON devices(product_type_id, app, device_id, last_logged_in);
  CREATE INDEX devices_firmware_updated ON devices(firmware_id, updated_at, device_id, last_logged_in);
  CREATE INDEX devices_firmware_created ON devices(firmware_id, created_at, device_id, last_logged_in);
  CREATE INDEX devices_firmware_app ON devices(firmware_id, app, device_id, last_logged_in);
  CREATE INDEX devices_updated ON devices(updated_at, device_id, app, os);
  CREATE INDEX devices_created ON devices(created_at, device_id, app, os);
  CREATE INDEX devices_last_logged_in ON devices(last_logged_in, device_id, app, os);
  CREATE INDEX devices_custom_seen ON devices(last_logged_in, device_id) WHERE firmware_id IS NOT NULL;
  CREATE INDEX devices_custom_updated ON devices(updated_at, device_id) WHERE firmware_id IS NOT NULL;
  CREATE INDEX devices_custom_created ON devices(created_at, device_id) WHERE firmware_id IS NOT NULL;
  CREATE INDEX devices_custom_app ON devices(app, device_id) WHERE firmware_id IS NOT NULL;
  `,
  // 17: saved views of the devices list and console preferences, per operator (docs/DECISIONS.md, "Saved views"); both
  // go with their owner's row. name_key is the name trimmed, NFC and lower-cased: unique per owner
  `
  CREATE TABLE saved_views (
    id TEXT PRIMARY KEY,
    owner_id TEXT NOT NULL REFERENCES operators(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    name_key TEXT NOT NULL,
    query TEXT NOT NULL,                     -- JSON SavedViewQuery
    shared INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    UNIQUE (owner_id, name_key)
  );
  CREATE INDEX saved_views_shared ON saved_views(shared, name_key) WHERE shared = 1;
  CREATE TABLE operator_preferences (
    operator_id TEXT PRIMARY KEY REFERENCES operators(id) ON DELETE CASCADE,
    device_columns TEXT                      -- JSON array of column ids, NULL: the default columns
  );
  `,
  // 18: the firmware the rollouts give each device and its firmware in effect unless the default, kept per device so
  // that every firmware filter is an index range and the overview's distribution a kept count (docs/DECISIONS.md,
  // "Firmware in effect, kept"): written by a sync whenever firmware_keys' signature moves, and by each device write.
  // firmware_keys.generation is bumped by triggers in the writing transaction; kept = the signature synced.
  `
  ALTER TABLE devices ADD COLUMN rollout_firmware_id TEXT;
  ALTER TABLE devices ADD COLUMN firmware_key TEXT;
  UPDATE devices SET firmware_key = firmware_id;
  CREATE TABLE firmware_keys (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    generation INTEGER NOT NULL,
    kept TEXT,
    product TEXT                             -- the PRODUCT the last sync ran for (whose device type's default counts)
  );
  INSERT INTO firmware_keys (id, generation, kept, product) VALUES (1, 0, NULL, NULL);
  CREATE TRIGGER rollouts_keys_update AFTER UPDATE OF state, stage ON rollouts
    WHEN NEW.state IS NOT OLD.state OR NEW.stage IS NOT OLD.stage BEGIN
    UPDATE firmware_keys SET generation = generation + 1;
  END;
  CREATE TRIGGER rollouts_keys_delete AFTER DELETE ON rollouts BEGIN
    UPDATE firmware_keys SET generation = generation + 1;
  END;
  CREATE TRIGGER device_types_keys_insert AFTER INSERT ON device_types BEGIN
    UPDATE firmware_keys SET generation = generation + 1;
  END;
  CREATE TRIGGER device_types_keys_update AFTER UPDATE OF default_firmware, name ON device_types BEGIN
    UPDATE firmware_keys SET generation = generation + 1;
  END;
  CREATE TRIGGER device_types_keys_delete AFTER DELETE ON device_types BEGIN
    UPDATE firmware_keys SET generation = generation + 1;
  END;
  CREATE TRIGGER firmwares_keys_delete AFTER DELETE ON firmwares BEGIN
    UPDATE firmware_keys SET generation = generation + 1;
  END;
  CREATE TRIGGER product_types_keys_delete AFTER DELETE ON product_types BEGIN
    UPDATE firmware_keys SET generation = generation + 1;
  END;
  DROP INDEX devices_firmware_seen;
  DROP INDEX devices_firmware_updated;
  DROP INDEX devices_firmware_created;
  DROP INDEX devices_firmware_app;
  CREATE INDEX devices_firmware_key ON devices(firmware_key, device_id);
  CREATE INDEX devices_firmware_key_seen ON devices(firmware_key, last_logged_in, device_id);
  CREATE INDEX devices_firmware_key_updated ON devices(firmware_key, updated_at, device_id, last_logged_in);
  CREATE INDEX devices_firmware_key_created ON devices(firmware_key, created_at, device_id, last_logged_in);
  CREATE INDEX devices_firmware_key_app ON devices(firmware_key, app, device_id, last_logged_in);
  INSERT INTO device_group_counts (dim, key, n)
    SELECT 'effective', COALESCE('v:' || firmware_key, 'none'), COUNT(*) FROM devices GROUP BY 2;
  CREATE TRIGGER devices_effective_count_insert AFTER INSERT ON devices BEGIN
    INSERT INTO device_group_counts (dim, key, n) SELECT 'effective', COALESCE('v:' || NEW.firmware_key, 'none'), 0
      WHERE NOT EXISTS (SELECT 1 FROM device_group_counts WHERE dim = 'effective' AND key = COALESCE('v:' || NEW.firmware_key, 'none'));
    UPDATE device_group_counts SET n = n + 1 WHERE dim = 'effective' AND key = COALESCE('v:' || NEW.firmware_key, 'none');
  END;
  CREATE TRIGGER devices_effective_count_delete AFTER DELETE ON devices BEGIN
    UPDATE device_group_counts SET n = n - 1 WHERE dim = 'effective' AND key = COALESCE('v:' || OLD.firmware_key, 'none');
  END;
  CREATE TRIGGER devices_effective_count_update AFTER UPDATE OF firmware_key ON devices
    WHEN NEW.firmware_key IS NOT OLD.firmware_key BEGIN
    UPDATE device_group_counts SET n = n - 1 WHERE dim = 'effective' AND key = COALESCE('v:' || OLD.firmware_key, 'none');
    INSERT INTO device_group_counts (dim, key, n) SELECT 'effective', COALESCE('v:' || NEW.firmware_key, 'none'), 0
      WHERE NOT EXISTS (SELECT 1 FROM device_group_counts WHERE dim = 'effective' AND key = COALESCE('v:' || NEW.firmware_key, 'none'));
    UPDATE device_group_counts SET n = n + 1 WHERE dim = 'effective' AND key = COALESCE('v:' || NEW.firmware_key, 'none');
  END;
  `,
  // 19: release integrity (docs/REQUIREMENTS.md §20; docs/DECISIONS.md, "Release integrity"): release keys (revoked,
  // never deleted: a firmware keeps naming the key that signed it), a firmware's verified signature, its uploader and
  // its approval. Firmware stored before needs no approval.
  `
  CREATE TABLE release_keys (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    name_key TEXT NOT NULL UNIQUE,             -- the name trimmed, NFC, lower-cased
    algorithm TEXT NOT NULL CHECK (algorithm IN ('ed25519', 'ecdsa-p256')),
    public_key TEXT NOT NULL,                  -- PEM SubjectPublicKeyInfo
    fingerprint TEXT NOT NULL UNIQUE,          -- sha256 hex of the DER SubjectPublicKeyInfo
    created_at TEXT NOT NULL,
    created_by TEXT NOT NULL,
    revoked_at TEXT,
    revoked_by TEXT
  );
  ALTER TABLE firmwares ADD COLUMN signature_key_id TEXT REFERENCES release_keys(id) ON DELETE RESTRICT;
  ALTER TABLE firmwares ADD COLUMN signature TEXT;
  ALTER TABLE firmwares ADD COLUMN uploaded_by_id TEXT;
  ALTER TABLE firmwares ADD COLUMN uploaded_by TEXT;
  ALTER TABLE firmwares ADD COLUMN approval TEXT NOT NULL DEFAULT 'not_required'
    CHECK (approval IN ('pending', 'approved', 'not_required'));
  ALTER TABLE firmwares ADD COLUMN approved_by TEXT;
  ALTER TABLE firmwares ADD COLUMN approved_at TEXT;
  ALTER TABLE firmwares ADD COLUMN approval_meaning TEXT;
  `,
  // 20: hawkBit DDI (docs/REQUIREMENTS.md §18; PostgreSQL's migration 14): one action per (device, firmware)
  // assignment, its id the decimal int32 devices see (AUTOINCREMENT: an id is never given twice); at most one open or
  // withdrawn-unacknowledged action per device; the sha1 and md5 DDI lists beside sha256; the attributes of configData.
  `
  CREATE TABLE ddi_actions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    device_id TEXT NOT NULL REFERENCES devices(device_id) ON DELETE CASCADE,
    firmware_id TEXT NOT NULL REFERENCES firmwares(id) ON DELETE CASCADE,
    state TEXT NOT NULL,                      -- open | canceling | closed | canceled
    result TEXT,                              -- closed: success | failure
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );
  CREATE UNIQUE INDEX ddi_actions_current ON ddi_actions(device_id) WHERE state IN ('open', 'canceling');
  CREATE INDEX ddi_actions_device ON ddi_actions(device_id, id);
  CREATE INDEX ddi_actions_firmware ON ddi_actions(firmware_id);
  ALTER TABLE firmwares ADD COLUMN sha1 TEXT;
  ALTER TABLE firmwares ADD COLUMN md5 TEXT;
  ALTER TABLE devices ADD COLUMN attributes TEXT;  -- JSON object of configData, NULL before the first
  `,
  // 21: the configuration generation (PostgreSQL's migration 16; docs/DECISIONS.md, "Device writes beside operator
  // writes ...; the credential and configuration from memory"): moved by every change of a table a device's
  // configuration or DDI answer reads beyond its own row. Row triggers (SQLite has no statement ones): a bulk change
  // moves it once per row, in the one writer's transaction.
  `
  CREATE TABLE config_generation (
    one INTEGER PRIMARY KEY CHECK (one = 1),
    value INTEGER NOT NULL
  );
  INSERT INTO config_generation (one, value) VALUES (1, 0);
  CREATE TRIGGER config_device_modules_insert AFTER INSERT ON device_modules BEGIN UPDATE config_generation SET value = value + 1; END;
  CREATE TRIGGER config_device_modules_update AFTER UPDATE ON device_modules BEGIN UPDATE config_generation SET value = value + 1; END;
  CREATE TRIGGER config_device_modules_delete AFTER DELETE ON device_modules BEGIN UPDATE config_generation SET value = value + 1; END;
  CREATE TRIGGER config_device_treatments_insert AFTER INSERT ON device_treatments BEGIN UPDATE config_generation SET value = value + 1; END;
  CREATE TRIGGER config_device_treatments_update AFTER UPDATE ON device_treatments BEGIN UPDATE config_generation SET value = value + 1; END;
  CREATE TRIGGER config_device_treatments_delete AFTER DELETE ON device_treatments BEGIN UPDATE config_generation SET value = value + 1; END;
  CREATE TRIGGER config_product_types_insert AFTER INSERT ON product_types BEGIN UPDATE config_generation SET value = value + 1; END;
  CREATE TRIGGER config_product_types_update AFTER UPDATE ON product_types BEGIN UPDATE config_generation SET value = value + 1; END;
  CREATE TRIGGER config_product_types_delete AFTER DELETE ON product_types BEGIN UPDATE config_generation SET value = value + 1; END;
  CREATE TRIGGER config_modules_insert AFTER INSERT ON modules BEGIN UPDATE config_generation SET value = value + 1; END;
  CREATE TRIGGER config_modules_update AFTER UPDATE ON modules BEGIN UPDATE config_generation SET value = value + 1; END;
  CREATE TRIGGER config_modules_delete AFTER DELETE ON modules BEGIN UPDATE config_generation SET value = value + 1; END;
  CREATE TRIGGER config_module_treatments_insert AFTER INSERT ON module_treatments BEGIN UPDATE config_generation SET value = value + 1; END;
  CREATE TRIGGER config_module_treatments_update AFTER UPDATE ON module_treatments BEGIN UPDATE config_generation SET value = value + 1; END;
  CREATE TRIGGER config_module_treatments_delete AFTER DELETE ON module_treatments BEGIN UPDATE config_generation SET value = value + 1; END;
  CREATE TRIGGER config_treatments_insert AFTER INSERT ON treatments BEGIN UPDATE config_generation SET value = value + 1; END;
  CREATE TRIGGER config_treatments_update AFTER UPDATE ON treatments BEGIN UPDATE config_generation SET value = value + 1; END;
  CREATE TRIGGER config_treatments_delete AFTER DELETE ON treatments BEGIN UPDATE config_generation SET value = value + 1; END;
  CREATE TRIGGER config_treatment_phases_insert AFTER INSERT ON treatment_phases BEGIN UPDATE config_generation SET value = value + 1; END;
  CREATE TRIGGER config_treatment_phases_update AFTER UPDATE ON treatment_phases BEGIN UPDATE config_generation SET value = value + 1; END;
  CREATE TRIGGER config_treatment_phases_delete AFTER DELETE ON treatment_phases BEGIN UPDATE config_generation SET value = value + 1; END;
  CREATE TRIGGER config_firmwares_insert AFTER INSERT ON firmwares BEGIN UPDATE config_generation SET value = value + 1; END;
  CREATE TRIGGER config_firmwares_update AFTER UPDATE ON firmwares BEGIN UPDATE config_generation SET value = value + 1; END;
  CREATE TRIGGER config_firmwares_delete AFTER DELETE ON firmwares BEGIN UPDATE config_generation SET value = value + 1; END;
  CREATE TRIGGER config_release_keys_insert AFTER INSERT ON release_keys BEGIN UPDATE config_generation SET value = value + 1; END;
  CREATE TRIGGER config_release_keys_update AFTER UPDATE ON release_keys BEGIN UPDATE config_generation SET value = value + 1; END;
  CREATE TRIGGER config_release_keys_delete AFTER DELETE ON release_keys BEGIN UPDATE config_generation SET value = value + 1; END;
  CREATE TRIGGER config_device_types_insert AFTER INSERT ON device_types BEGIN UPDATE config_generation SET value = value + 1; END;
  CREATE TRIGGER config_device_types_update AFTER UPDATE ON device_types BEGIN UPDATE config_generation SET value = value + 1; END;
  CREATE TRIGGER config_device_types_delete AFTER DELETE ON device_types BEGIN UPDATE config_generation SET value = value + 1; END;
  CREATE TRIGGER config_rollout_devices_insert AFTER INSERT ON rollout_devices BEGIN UPDATE config_generation SET value = value + 1; END;
  CREATE TRIGGER config_rollout_devices_update AFTER UPDATE ON rollout_devices BEGIN UPDATE config_generation SET value = value + 1; END;
  CREATE TRIGGER config_rollout_devices_delete AFTER DELETE ON rollout_devices BEGIN UPDATE config_generation SET value = value + 1; END;
  CREATE TRIGGER config_ddi_actions_insert AFTER INSERT ON ddi_actions BEGIN UPDATE config_generation SET value = value + 1; END;
  CREATE TRIGGER config_ddi_actions_update AFTER UPDATE ON ddi_actions BEGIN UPDATE config_generation SET value = value + 1; END;
  CREATE TRIGGER config_ddi_actions_delete AFTER DELETE ON ddi_actions BEGIN UPDATE config_generation SET value = value + 1; END;
  CREATE TRIGGER config_rollouts_insert AFTER INSERT ON rollouts BEGIN UPDATE config_generation SET value = value + 1; END;
  CREATE TRIGGER config_rollouts_delete AFTER DELETE ON rollouts BEGIN UPDATE config_generation SET value = value + 1; END;
  CREATE TRIGGER config_rollouts_update AFTER UPDATE OF firmware_id, product_type_id, stages, state, stage, stage_percent, created_at ON rollouts BEGIN UPDATE config_generation SET value = value + 1; END;
  `,
  // 22: rollouts newest first by creation order, not by the clock (docs/DECISIONS.md, "Rollouts newest first by
  // creation order"): the rowid, given in insert order under the one writer, ranks them; the table is read in its own
  // order. Rollouts created in one millisecond were ranked by their random ids, so the kept firmware keys are synced
  // again under the new order.
  `
  DROP INDEX rollouts_newest;
  UPDATE firmware_keys SET generation = generation + 1;
  `,
  // 23: the exact last check-in in a narrow table of its own (docs/DECISIONS.md, "Last-seen writes of a million-device
  // fleet: the exact time beside the row"; PostgreSQL's migration 18): device_seen holds it with copies of the columns
  // the sort by last seen filters by (kept by triggers on devices) and that sort's indexes; devices keeps the hour of
  // it (seen_hour) in the indexes where last_logged_in trailed.
  `
  CREATE TABLE device_seen (
    device_id TEXT PRIMARY KEY REFERENCES devices(device_id) ON DELETE CASCADE,
    last_logged_in TEXT,
    product_type_id TEXT,
    firmware_key TEXT,
    firmware_id TEXT,
    app TEXT,
    os TEXT
  ) WITHOUT ROWID;
  INSERT INTO device_seen (device_id, last_logged_in, product_type_id, firmware_key, firmware_id, app, os)
    SELECT device_id, last_logged_in, product_type_id, firmware_key, firmware_id, app, os FROM devices;
  CREATE INDEX device_seen_last_logged_in ON device_seen(last_logged_in, device_id, app, os);
  CREATE INDEX device_seen_product_type ON device_seen(product_type_id, last_logged_in, device_id);
  CREATE INDEX device_seen_firmware_key ON device_seen(firmware_key, last_logged_in, device_id, firmware_id);
  CREATE INDEX device_seen_custom ON device_seen(last_logged_in, device_id) WHERE firmware_id IS NOT NULL;

  DROP INDEX devices_product_type_seen;
  DROP INDEX devices_product_type_updated;
  DROP INDEX devices_product_type_created;
  DROP INDEX devices_product_type_app;
  DROP INDEX devices_last_logged_in;
  DROP INDEX devices_custom_seen;
  DROP INDEX devices_firmware_key_seen;
  DROP INDEX devices_firmware_key_updated;
  DROP INDEX devices_firmware_key_created;
  DROP INDEX devices_firmware_key_app;
  ALTER TABLE devices ADD COLUMN seen_hour TEXT;
  UPDATE devices SET seen_hour = substr(last_logged_in, 1, 13) WHERE last_logged_in IS NOT NULL;
  ALTER TABLE devices DROP COLUMN last_logged_in;
  CREATE INDEX devices_product_type_seen ON devices(product_type_id, seen_hour, device_id);
  CREATE INDEX devices_product_type_updated ON devices(product_type_id, updated_at, device_id, seen_hour);
  CREATE INDEX devices_product_type_created ON devices(product_type_id, created_at, device_id, seen_hour);
  CREATE INDEX devices_product_type_app ON devices(product_type_id, app, device_id, seen_hour);
  CREATE INDEX devices_seen_hour ON devices(seen_hour, device_id, app, os);
  CREATE INDEX devices_custom_seen ON devices(seen_hour, device_id) WHERE firmware_id IS NOT NULL;
  CREATE INDEX devices_firmware_key_seen ON devices(firmware_key, seen_hour, device_id);
  CREATE INDEX devices_firmware_key_updated ON devices(firmware_key, updated_at, device_id, seen_hour);
  CREATE INDEX devices_firmware_key_created ON devices(firmware_key, created_at, device_id, seen_hour);
  CREATE INDEX devices_firmware_key_app ON devices(firmware_key, app, device_id, seen_hour);

  -- The versions from the row's JSON (devices_versions_insert sets the columns after the insert, in whichever order
  -- the two triggers fire).
  CREATE TRIGGER devices_seen_insert AFTER INSERT ON devices BEGIN
    INSERT INTO device_seen (device_id, product_type_id, firmware_key, firmware_id, app, os)
      VALUES (NEW.device_id, NEW.product_type_id, NEW.firmware_key, NEW.firmware_id,
        json_extract(NEW.version_info, '$.app'), json_extract(NEW.version_info, '$.os'));
  END;
  CREATE TRIGGER devices_seen_update AFTER UPDATE OF product_type_id, firmware_key, firmware_id, app, os ON devices
    WHEN NEW.product_type_id IS NOT OLD.product_type_id OR NEW.firmware_key IS NOT OLD.firmware_key
      OR NEW.firmware_id IS NOT OLD.firmware_id OR NEW.app IS NOT OLD.app OR NEW.os IS NOT OLD.os BEGIN
    UPDATE device_seen SET product_type_id = NEW.product_type_id, firmware_key = NEW.firmware_key,
        firmware_id = NEW.firmware_id, app = NEW.app, os = NEW.os
      WHERE device_id = NEW.device_id;
  END;
  `,
  // 24: the OS version trails (product_type_id, app, …) (docs/DECISIONS.md, "Fleet views at 100,000 devices: p99 ≤ 10
  // ms on both engines"): an app + OS filter sorted by product type counts and reads each group in this index alone,
  // not one devices row per app match to test its OS (8–11 ms a page at 100,000, 0.5 so). The same number of indexes.
  `
  DROP INDEX devices_product_type_app;
  CREATE INDEX devices_product_type_app ON devices(product_type_id, app, device_id, seen_hour, os);
  `,
  // 25: the custom firmware column trails the firmware key's indexes, as PostgreSQL's INCLUDE (firmware_id) has it
  // (same section): "firmware in effect = the default" is `firmware_key IS NULL AND firmware_id IS NULL`, which read
  // every match's devices row to test the column (3–4 ms a page at 100,000, 0.5 so).
  `
  DROP INDEX devices_firmware_key;
  DROP INDEX devices_firmware_key_seen;
  DROP INDEX devices_firmware_key_updated;
  DROP INDEX devices_firmware_key_created;
  DROP INDEX devices_firmware_key_app;
  CREATE INDEX devices_firmware_key ON devices(firmware_key, device_id, firmware_id);
  CREATE INDEX devices_firmware_key_seen ON devices(firmware_key, seen_hour, device_id, firmware_id);
  CREATE INDEX devices_firmware_key_updated ON devices(firmware_key, updated_at, device_id, seen_hour, firmware_id);
  CREATE INDEX devices_firmware_key_created ON devices(firmware_key, created_at, device_id, seen_hour, firmware_id);
  CREATE INDEX devices_firmware_key_app ON devices(firmware_key, app, device_id, seen_hour, firmware_id);
  `,
];
