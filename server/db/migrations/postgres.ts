/**
 * PostgreSQL migrations, applied in order at start under an advisory lock (the `schema_version` row holds the
 * version). Never edit a released migration: append a new one. The same tables as SQLite's (sqlite.ts) at its latest
 * version, in PostgreSQL's types: text keys and names in the "C" collation (the order SQLite's BINARY gives), JSON kept
 * as the text it was written as, timestamps as ISO 8601 text (made by the server: clock.ts).
 */
/**
 * The statement triggers' functions that keep device_group_counts (migrations 6, 10, 12): each changed row counted
 * under each of GROUPS' (dim, key) pairs.
 */
const GROUP_COUNT_FUNCTIONS = `
  CREATE OR REPLACE FUNCTION device_groups_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    INSERT INTO device_group_counts (dim, key, n)
      SELECT dim, key, count(*) FROM (SELECT g.dim, g.key FROM new_rows r, LATERAL GROUPS) x GROUP BY 1, 2
      ON CONFLICT (dim, key) DO UPDATE SET n = device_group_counts.n + excluded.n;
    RETURN NULL;
  END $$;
  CREATE OR REPLACE FUNCTION device_groups_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    INSERT INTO device_group_counts (dim, key, n)
      SELECT dim, key, -count(*) FROM (SELECT g.dim, g.key FROM old_rows r, LATERAL GROUPS) x GROUP BY 1, 2
      ON CONFLICT (dim, key) DO UPDATE SET n = device_group_counts.n + excluded.n;
    RETURN NULL;
  END $$;
  CREATE OR REPLACE FUNCTION device_groups_updated() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    INSERT INTO device_group_counts (dim, key, n)
      SELECT dim, key, sum(d) FROM (
        SELECT x.dim, x.key, 1 AS d FROM (SELECT g.dim, g.key FROM new_rows r, LATERAL GROUPS) x
        UNION ALL
        SELECT y.dim, y.key, -1 AS d FROM (SELECT g.dim, g.key FROM old_rows r, LATERAL GROUPS) y
      ) z GROUP BY 1, 2 HAVING sum(d) <> 0
      ON CONFLICT (dim, key) DO UPDATE SET n = device_group_counts.n + excluded.n;
    RETURN NULL;
  END $$;
  `;

const GROUPS_10 = `(VALUES ('productType', COALESCE('v:' || r.product_type_id, 'none')),
        ('firmware', COALESCE('v:' || r.firmware_id, 'none')), ('app', COALESCE('v:' || r.app, 'none')),
        ('seen', COALESCE('h:' || substr(r.last_logged_in, 1, 13), 'none'))) AS g(dim, key)`;

export const MIGRATIONS: readonly string[] = [
  // 1: the whole schema as of SQLite's migration 7
  `
  CREATE FUNCTION ascii_lower(text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$ SELECT translate($1, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz') $$;

  CREATE SEQUENCE revisions;

  CREATE TABLE change_counters (
    name TEXT COLLATE "C" PRIMARY KEY,
    value BIGINT NOT NULL
  );
  INSERT INTO change_counters (name, value) VALUES ('devices', 0), ('device_count', 0);

  CREATE TABLE settings (
    name TEXT COLLATE "C" PRIMARY KEY,
    value TEXT NOT NULL
  );

  CREATE TABLE operators (
    id TEXT COLLATE "C" PRIMARY KEY,
    email TEXT NOT NULL,
    email_key TEXT COLLATE "C" NOT NULL UNIQUE,
    password_hash TEXT NOT NULL,
    password_version INTEGER NOT NULL DEFAULT 1,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );

  CREATE TABLE firmwares (
    seq BIGSERIAL NOT NULL,                   -- upload order (SQLite's rowid): breaks ties of created_at
    id TEXT COLLATE "C" PRIMARY KEY,
    name TEXT COLLATE "C" NOT NULL UNIQUE,
    size BIGINT NOT NULL,
    sha256 TEXT COLLATE "C" NOT NULL,
    created_at TEXT COLLATE "C" NOT NULL
  );
  CREATE INDEX firmwares_created ON firmwares(created_at DESC, seq DESC);
  CREATE INDEX firmwares_sha256 ON firmwares(sha256);

  CREATE TABLE device_types (
    id TEXT COLLATE "C" PRIMARY KEY,
    name TEXT COLLATE "C" NOT NULL UNIQUE,
    default_firmware TEXT COLLATE "C" REFERENCES firmwares(id) ON DELETE RESTRICT,
    revision BIGINT NOT NULL DEFAULT nextval('revisions')
  );
  CREATE INDEX device_types_default_firmware ON device_types(default_firmware);

  CREATE TABLE treatment_phases (
    id BIGSERIAL PRIMARY KEY,
    json TEXT NOT NULL
  );
  CREATE TABLE treatment_image_data (
    id BIGSERIAL PRIMARY KEY,
    data BYTEA NOT NULL
  );

  CREATE TABLE treatments (
    id TEXT COLLATE "C" PRIMARY KEY,
    name TEXT COLLATE "C" NOT NULL UNIQUE,
    category TEXT,
    use TEXT,
    phases_id BIGINT NOT NULL REFERENCES treatment_phases(id),
    image_ids TEXT NOT NULL DEFAULT '[]',
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );
  CREATE INDEX treatments_phases ON treatments(phases_id);
  CREATE INDEX treatments_list_order ON treatments((ascii_lower(name)), name);

  CREATE TABLE treatment_images (
    id TEXT COLLATE "C" PRIMARY KEY,
    treatment_id TEXT COLLATE "C" NOT NULL REFERENCES treatments(id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    mime_type TEXT NOT NULL,
    data_id BIGINT NOT NULL REFERENCES treatment_image_data(id)
  );
  CREATE INDEX treatment_images_treatment ON treatment_images(treatment_id, position);
  CREATE INDEX treatment_images_data ON treatment_images(data_id);

  CREATE TABLE product_types (
    id TEXT COLLATE "C" PRIMARY KEY,
    name TEXT COLLATE "C" NOT NULL,
    name_key TEXT COLLATE "C" NOT NULL UNIQUE,
    theme TEXT NOT NULL DEFAULT '{}',
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    revision BIGINT NOT NULL DEFAULT nextval('revisions')
  );

  CREATE TABLE modules (
    id TEXT COLLATE "C" PRIMARY KEY,
    product_type_id TEXT COLLATE "C" NOT NULL REFERENCES product_types(id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    name TEXT NOT NULL,
    is_default BOOLEAN NOT NULL DEFAULT false
  );
  CREATE INDEX modules_product_type ON modules(product_type_id, position);

  CREATE TABLE module_treatments (
    module_id TEXT COLLATE "C" NOT NULL REFERENCES modules(id) ON DELETE CASCADE,
    treatment_id TEXT COLLATE "C" NOT NULL REFERENCES treatments(id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    PRIMARY KEY (module_id, treatment_id)
  );
  CREATE INDEX module_treatments_treatment ON module_treatments(treatment_id);

  CREATE TABLE devices (
    device_id TEXT COLLATE "C" PRIMARY KEY,
    product_type_id TEXT COLLATE "C" REFERENCES product_types(id) ON DELETE SET NULL,
    firmware_id TEXT COLLATE "C" REFERENCES firmwares(id) ON DELETE RESTRICT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    last_logged_in TEXT,
    version_info TEXT,
    revision BIGINT NOT NULL DEFAULT nextval('revisions')
  );
  CREATE INDEX devices_product_type ON devices(product_type_id);
  CREATE INDEX devices_firmware ON devices(firmware_id);

  CREATE TABLE device_modules (
    device_id TEXT COLLATE "C" NOT NULL REFERENCES devices(device_id) ON DELETE CASCADE,
    module_id TEXT COLLATE "C" NOT NULL REFERENCES modules(id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    PRIMARY KEY (device_id, module_id)
  );
  CREATE INDEX device_modules_module ON device_modules(module_id);

  CREATE TABLE device_treatments (
    device_id TEXT COLLATE "C" NOT NULL REFERENCES devices(device_id) ON DELETE CASCADE,
    treatment_id TEXT COLLATE "C" NOT NULL REFERENCES treatments(id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    PRIMARY KEY (device_id, treatment_id)
  );
  CREATE INDEX device_treatments_treatment ON device_treatments(treatment_id);

  -- The devices change counter (what the page cache is versioned by) and the device count (so a page's total is one
  -- row read, not a count of a million rows), moved by statement-level triggers in the writing transaction, cascades
  -- included.
  CREATE FUNCTION devices_changed() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    UPDATE change_counters SET value = value + 1 WHERE name = 'devices';
    RETURN NULL;
  END $$;
  CREATE FUNCTION devices_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
  DECLARE n BIGINT;
  BEGIN
    SELECT count(*) INTO n FROM new_rows;
    IF n > 0 THEN
      UPDATE change_counters SET value = value + CASE name WHEN 'devices' THEN 1 ELSE n END
        WHERE name IN ('devices', 'device_count');
    END IF;
    RETURN NULL;
  END $$;
  CREATE FUNCTION devices_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
  DECLARE n BIGINT;
  BEGIN
    SELECT count(*) INTO n FROM old_rows;
    IF n > 0 THEN
      UPDATE change_counters SET value = value + CASE name WHEN 'devices' THEN 1 ELSE -n END
        WHERE name IN ('devices', 'device_count');
    END IF;
    RETURN NULL;
  END $$;
  CREATE TRIGGER devices_insert_counted AFTER INSERT ON devices REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION devices_inserted();
  CREATE TRIGGER devices_delete_counted AFTER DELETE ON devices REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION devices_deleted();
  CREATE TRIGGER devices_update_counted AFTER UPDATE ON devices
    FOR EACH STATEMENT EXECUTE FUNCTION devices_changed();
  CREATE TRIGGER device_modules_counted AFTER INSERT OR UPDATE OR DELETE ON device_modules
    FOR EACH STATEMENT EXECUTE FUNCTION devices_changed();
  CREATE TRIGGER device_treatments_counted AFTER INSERT OR UPDATE OR DELETE ON device_treatments
    FOR EACH STATEMENT EXECUTE FUNCTION devices_changed();

  CREATE TABLE login_attempts (
    scope TEXT COLLATE "C" NOT NULL,
    email_key TEXT COLLATE "C" NOT NULL,
    address TEXT COLLATE "C" NOT NULL,
    attempts INTEGER NOT NULL,
    first_at TEXT COLLATE "C" NOT NULL,
    last_at TEXT COLLATE "C" NOT NULL,
    PRIMARY KEY (scope, email_key, address)
  );
  CREATE INDEX login_attempts_last ON login_attempts(last_at);

  CREATE TABLE login_addresses (
    email_key TEXT COLLATE "C" NOT NULL,
    address TEXT COLLATE "C" NOT NULL,
    last_success_at TEXT COLLATE "C" NOT NULL,
    PRIMARY KEY (email_key, address)
  );
  CREATE INDEX login_addresses_last ON login_addresses(last_success_at);
  `,
  // 2: roles (the operators there before roles existed are admins) and disabled accounts (SQLite's migration 8)
  `
  ALTER TABLE operators ADD COLUMN role TEXT NOT NULL DEFAULT 'admin' CHECK (role IN ('admin', 'operator', 'viewer'));
  ALTER TABLE operators ADD COLUMN disabled BOOLEAN NOT NULL DEFAULT false;
  `,
  // 3: the audit trail (SQLite's migration 9)
  `
  CREATE TABLE audit_entries (
    seq BIGINT PRIMARY KEY,
    id TEXT COLLATE "C" NOT NULL UNIQUE,
    at TEXT COLLATE "C" NOT NULL,
    actor_type TEXT COLLATE "C" NOT NULL,
    actor_id TEXT COLLATE "C" NOT NULL,
    actor_name TEXT COLLATE "C" NOT NULL,
    action TEXT COLLATE "C" NOT NULL,
    target_type TEXT COLLATE "C",
    target_id TEXT COLLATE "C",
    target_name TEXT COLLATE "C",
    details TEXT NOT NULL,
    ip TEXT COLLATE "C",
    hash TEXT COLLATE "C" NOT NULL
  );
  CREATE INDEX audit_entries_actor_id ON audit_entries(actor_id, seq);
  CREATE INDEX audit_entries_actor_name ON audit_entries(actor_name, seq);
  CREATE INDEX audit_entries_action ON audit_entries(action, seq);
  CREATE INDEX audit_entries_target ON audit_entries(target_type, target_id, seq);
  CREATE INDEX audit_entries_target_id ON audit_entries(target_id, seq);
  CREATE INDEX audit_entries_at ON audit_entries(at);
  CREATE TABLE audit_head (
    one BOOLEAN PRIMARY KEY DEFAULT true CHECK (one),
    seq BIGINT NOT NULL,
    hash TEXT COLLATE "C" NOT NULL
  );
  INSERT INTO audit_head (one, seq, hash) VALUES (true, 0, '');
  `,
  // 4: device identity and admission (docs/REQUIREMENTS.md §11; SQLite's migration 10): devices there before count as accepted
  // without a token; token_hash is the sha256 (hex) of the device's token, never the token.
  `
  ALTER TABLE devices ADD COLUMN admission TEXT COLLATE "C" NOT NULL DEFAULT 'accepted'
    CHECK (admission IN ('pending', 'accepted', 'rejected'));
  ALTER TABLE devices ADD COLUMN token_hash TEXT COLLATE "C";
  ALTER TABLE devices ADD COLUMN credentials_issued_at TEXT;
  CREATE INDEX devices_admission ON devices(admission, device_id);
  `,
  // 5: update status and staged rollouts (SQLite's migration 11)
  `
  ALTER TABLE devices ADD COLUMN update_status TEXT;

  CREATE TABLE rollouts (
    id TEXT COLLATE "C" PRIMARY KEY,
    name TEXT NOT NULL,
    firmware_id TEXT COLLATE "C" NOT NULL,
    product_type_id TEXT COLLATE "C",
    stages TEXT NOT NULL,
    failure_threshold DOUBLE PRECISION NOT NULL,
    auto_advance BOOLEAN NOT NULL,
    state TEXT COLLATE "C" NOT NULL CHECK (state IN ('draft', 'running', 'paused', 'finished', 'cancelled')),
    stage INTEGER NOT NULL DEFAULT -1,
    stage_percent DOUBLE PRECISION NOT NULL DEFAULT 0,
    paused_reason TEXT,
    targeted BIGINT NOT NULL DEFAULT 0,
    in_stage BIGINT NOT NULL DEFAULT 0,
    downloading BIGINT NOT NULL DEFAULT 0,
    installing BIGINT NOT NULL DEFAULT 0,
    installed BIGINT NOT NULL DEFAULT 0,
    failed BIGINT NOT NULL DEFAULT 0,
    failed_accepted BIGINT NOT NULL DEFAULT 0,
    created_at TEXT COLLATE "C" NOT NULL,
    updated_at TEXT COLLATE "C" NOT NULL,
    created_by TEXT NOT NULL
  );
  CREATE INDEX rollouts_newest ON rollouts(created_at DESC, id DESC);
  CREATE INDEX rollouts_state ON rollouts(state, product_type_id);
  CREATE INDEX rollouts_firmware ON rollouts(firmware_id);

  CREATE TABLE rollout_devices (
    rollout_id TEXT COLLATE "C" NOT NULL REFERENCES rollouts(id) ON DELETE CASCADE,
    device_id TEXT COLLATE "C" NOT NULL REFERENCES devices(device_id) ON DELETE CASCADE,
    bucket DOUBLE PRECISION NOT NULL,
    state TEXT COLLATE "C",
    progress INTEGER,
    message TEXT,
    at TEXT COLLATE "C",
    PRIMARY KEY (rollout_id, device_id)
  );
  CREATE INDEX rollout_devices_bucket ON rollout_devices(rollout_id, bucket);
  CREATE INDEX rollout_devices_state ON rollout_devices(rollout_id, state, device_id);
  CREATE INDEX rollout_devices_device ON rollout_devices(device_id);
  CREATE FUNCTION rollout_devices_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    UPDATE rollouts SET
      targeted = targeted - 1,
      in_stage = in_stage - (OLD.bucket < stage_percent)::int,
      downloading = downloading - (OLD.state IS NOT DISTINCT FROM 'downloading')::int,
      installing = installing - (OLD.state IS NOT DISTINCT FROM 'installing')::int,
      installed = installed - (OLD.state IS NOT DISTINCT FROM 'installed')::int,
      failed = failed - (OLD.state IS NOT DISTINCT FROM 'failed')::int
    WHERE id = OLD.rollout_id;
    RETURN NULL;
  END $$;
  CREATE TRIGGER rollout_devices_deleted AFTER DELETE ON rollout_devices
    FOR EACH ROW EXECUTE FUNCTION rollout_devices_deleted();

  CREATE TABLE rollout_history (
    rollout_id TEXT COLLATE "C" NOT NULL REFERENCES rollouts(id) ON DELETE CASCADE,
    at TEXT COLLATE "C" NOT NULL,
    stage INTEGER NOT NULL,
    in_stage BIGINT NOT NULL,
    downloading BIGINT NOT NULL,
    installing BIGINT NOT NULL,
    installed BIGINT NOT NULL,
    failed BIGINT NOT NULL,
    PRIMARY KEY (rollout_id, at)
  );
  `,
  // 6: fleet views (docs/REQUIREMENTS.md §16; SQLite's migration 12): the app and OS versions as (stored) columns, and an index
  // per filter and sort, ordered by deviceId within its key, plus product type and firmware with each sort; NULLS
  // FIRST as SQLite orders them
  `
  DROP INDEX devices_product_type;
  DROP INDEX devices_firmware;
  ALTER TABLE devices ADD COLUMN app TEXT COLLATE "C" GENERATED ALWAYS AS (version_info::jsonb ->> 'app') STORED;
  ALTER TABLE devices ADD COLUMN os TEXT COLLATE "C" GENERATED ALWAYS AS (version_info::jsonb ->> 'os') STORED;
  CREATE INDEX devices_product_type ON devices(product_type_id, device_id);
  CREATE INDEX devices_firmware ON devices(firmware_id, device_id);
  CREATE INDEX devices_last_logged_in ON devices(last_logged_in NULLS FIRST, device_id);
  CREATE INDEX devices_updated ON devices(updated_at, device_id);
  CREATE INDEX devices_created ON devices(created_at, device_id);
  CREATE INDEX devices_app ON devices(app NULLS FIRST, os, device_id);
  CREATE INDEX devices_os ON devices(os, device_id);
  CREATE INDEX devices_product_type_seen ON devices(product_type_id, last_logged_in NULLS FIRST, device_id);
  CREATE INDEX devices_product_type_updated ON devices(product_type_id, updated_at, device_id);
  CREATE INDEX devices_product_type_created ON devices(product_type_id, created_at, device_id);
  CREATE INDEX devices_product_type_app ON devices(product_type_id, app NULLS FIRST, device_id);
  CREATE INDEX devices_firmware_seen ON devices(firmware_id, last_logged_in NULLS FIRST, device_id);
  CREATE INDEX devices_firmware_updated ON devices(firmware_id, updated_at, device_id);
  CREATE INDEX devices_firmware_created ON devices(firmware_id, created_at, device_id);
  CREATE INDEX devices_firmware_app ON devices(firmware_id, app NULLS FIRST, device_id);
  -- The overview's grouped counts, kept by statement triggers in the writing transaction; only groups whose count
  -- moves are written (a check-in that changes no version locks no counter row)
  CREATE TABLE device_group_counts (
    dim TEXT COLLATE "C" NOT NULL,
    key TEXT COLLATE "C" NOT NULL,
    n BIGINT NOT NULL,
    PRIMARY KEY (dim, key)
  );
  INSERT INTO device_group_counts (dim, key, n)
    SELECT dim, key, count(*) FROM (SELECT g.dim, g.key FROM devices r, LATERAL (VALUES ('productType', COALESCE('v:' || r.product_type_id, 'none')),
        ('firmware', COALESCE('v:' || r.firmware_id, 'none')), ('app', COALESCE('v:' || r.app, 'none'))) AS g(dim, key)) x GROUP BY 1, 2;
  CREATE FUNCTION device_groups_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    INSERT INTO device_group_counts (dim, key, n)
      SELECT dim, key, count(*) FROM (SELECT g.dim, g.key FROM new_rows r, LATERAL (VALUES ('productType', COALESCE('v:' || r.product_type_id, 'none')),
        ('firmware', COALESCE('v:' || r.firmware_id, 'none')), ('app', COALESCE('v:' || r.app, 'none'))) AS g(dim, key)) x GROUP BY 1, 2
      ON CONFLICT (dim, key) DO UPDATE SET n = device_group_counts.n + excluded.n;
    RETURN NULL;
  END $$;
  CREATE FUNCTION device_groups_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    INSERT INTO device_group_counts (dim, key, n)
      SELECT dim, key, -count(*) FROM (SELECT g.dim, g.key FROM old_rows r, LATERAL (VALUES ('productType', COALESCE('v:' || r.product_type_id, 'none')),
        ('firmware', COALESCE('v:' || r.firmware_id, 'none')), ('app', COALESCE('v:' || r.app, 'none'))) AS g(dim, key)) x GROUP BY 1, 2
      ON CONFLICT (dim, key) DO UPDATE SET n = device_group_counts.n + excluded.n;
    RETURN NULL;
  END $$;
  CREATE FUNCTION device_groups_updated() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    INSERT INTO device_group_counts (dim, key, n)
      SELECT dim, key, sum(d) FROM (
        SELECT x.dim, x.key, 1 AS d FROM (SELECT g.dim, g.key FROM new_rows r, LATERAL (VALUES ('productType', COALESCE('v:' || r.product_type_id, 'none')),
        ('firmware', COALESCE('v:' || r.firmware_id, 'none')), ('app', COALESCE('v:' || r.app, 'none'))) AS g(dim, key)) x
        UNION ALL
        SELECT y.dim, y.key, -1 AS d FROM (SELECT g.dim, g.key FROM old_rows r, LATERAL (VALUES ('productType', COALESCE('v:' || r.product_type_id, 'none')),
        ('firmware', COALESCE('v:' || r.firmware_id, 'none')), ('app', COALESCE('v:' || r.app, 'none'))) AS g(dim, key)) y
      ) z GROUP BY 1, 2 HAVING sum(d) <> 0
      ON CONFLICT (dim, key) DO UPDATE SET n = device_group_counts.n + excluded.n;
    RETURN NULL;
  END $$;
  CREATE TRIGGER devices_groups_insert AFTER INSERT ON devices REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION device_groups_inserted();
  CREATE TRIGGER devices_groups_delete AFTER DELETE ON devices REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION device_groups_deleted();
  CREATE TRIGGER devices_groups_update AFTER UPDATE ON devices REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION device_groups_updated();
  `,
  // 7: API tokens (SQLite's migration 13): only the sha256 of each secret is kept; a token goes with its owner's row
  `
  CREATE TABLE api_tokens (
    id TEXT COLLATE "C" PRIMARY KEY,
    owner_id TEXT COLLATE "C" NOT NULL REFERENCES operators(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    scopes TEXT COLLATE "C" NOT NULL,
    secret_hash TEXT COLLATE "C" NOT NULL UNIQUE,
    created_at TEXT COLLATE "C" NOT NULL,
    expires_at TEXT COLLATE "C",
    last_used_at TEXT COLLATE "C"
  );
  CREATE INDEX api_tokens_owner ON api_tokens(owner_id, created_at);
  `,
  // 8: the audit actor filter matches the actor's name only (SQLite's migration 14)
  `DROP INDEX IF EXISTS audit_entries_actor_id;`,
  // 9: the devices list's update-state filter (SQLite's migration 15)
  `CREATE INDEX devices_update_state ON devices((update_status::jsonb ->> 'state'), device_id);`,
  // 10: the fleet's check-ins counted by hour (dim 'seen': 'h:' and the hour of the last check-in, or 'none'), kept by
  // the same statement triggers as the other groups: the overview's and the seen filter's counts read these rows
  // instead of visiting every device (PostgreSQL visits the row of each device counted: every check-in clears its
  // page's all-visible bit). A check-in within the hour of the previous one writes no counter row.
  `
  INSERT INTO device_group_counts (dim, key, n)
    SELECT 'seen', COALESCE('h:' || substr(last_logged_in, 1, 13), 'none'), count(*) FROM devices GROUP BY 2;
  ${GROUP_COUNT_FUNCTIONS}
  -- Filters an index does not order by are checked in the index, not by visiting each row: the last check-in (seen)
  -- after the product type and firmware sorts' keys, the app and OS versions after the time sorts'; and the devices
  -- with a custom firmware (few) have an index per sort of their own (firmware_id IS NOT NULL spans every firmware id,
  -- so the (firmware_id, sort) indexes cannot give its order).
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
  CREATE INDEX devices_product_type_app ON devices(product_type_id, app NULLS FIRST, device_id, last_logged_in);
  CREATE INDEX devices_firmware_updated ON devices(firmware_id, updated_at, device_id, last_logged_in);
  CREATE INDEX devices_firmware_created ON devices(firmware_id, created_at, device_id, last_logged_in);
  CREATE INDEX devices_firmware_app ON devices(firmware_id, app NULLS FIRST, device_id, last_logged_in);
  CREATE INDEX devices_updated ON devices(updated_at, device_id, app, os);
  CREATE INDEX devices_created ON devices(created_at, device_id, app, os);
  CREATE INDEX devices_last_logged_in ON devices(last_logged_in NULLS FIRST, device_id, app, os);
  CREATE INDEX devices_custom_seen ON devices(last_logged_in NULLS FIRST, device_id) WHERE firmware_id IS NOT NULL;
  CREATE INDEX devices_custom_updated ON devices(updated_at, device_id) WHERE firmware_id IS NOT NULL;
  CREATE INDEX devices_custom_created ON devices(created_at, device_id) WHERE firmware_id IS NOT NULL;
  CREATE INDEX devices_custom_app ON devices(app NULLS FIRST, device_id) WHERE firmware_id IS NOT NULL;
  `.replaceAll("GROUPS", GROUPS_10),
  // 11: saved views and console preferences, per operator (SQLite's migration 17)
  `
  CREATE TABLE saved_views (
    id TEXT COLLATE "C" PRIMARY KEY,
    owner_id TEXT COLLATE "C" NOT NULL REFERENCES operators(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    name_key TEXT COLLATE "C" NOT NULL,
    query TEXT NOT NULL,
    shared BOOLEAN NOT NULL DEFAULT FALSE,
    created_at TEXT COLLATE "C" NOT NULL,
    updated_at TEXT COLLATE "C" NOT NULL,
    UNIQUE (owner_id, name_key)
  );
  CREATE INDEX saved_views_shared ON saved_views(name_key) WHERE shared;
  CREATE TABLE operator_preferences (
    operator_id TEXT COLLATE "C" PRIMARY KEY REFERENCES operators(id) ON DELETE CASCADE,
    device_columns TEXT
  );
  `,
  // 12: the firmware the rollouts give each device and its firmware in effect unless the default, kept per device
  // (SQLite's migration 18; docs/DECISIONS.md, "Firmware in effect, kept"), counted as dim 'effective'. The
  // generation is bumped by triggers in the writing transaction: a device write that computes its keys holds the row
  // FOR SHARE, so a change of rollouts or default waits for it, and it for the change.
  `
  ALTER TABLE devices ADD COLUMN rollout_firmware_id TEXT COLLATE "C";
  ALTER TABLE devices ADD COLUMN firmware_key TEXT COLLATE "C";
  UPDATE devices SET firmware_key = firmware_id WHERE firmware_id IS NOT NULL;
  CREATE TABLE firmware_keys (
    one BOOLEAN PRIMARY KEY DEFAULT true CHECK (one),
    generation BIGINT NOT NULL,
    kept TEXT,
    product TEXT
  );
  INSERT INTO firmware_keys (one, generation, kept, product) VALUES (true, 0, NULL, NULL);
  CREATE FUNCTION firmware_keys_bump() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    UPDATE firmware_keys SET generation = generation + 1;
    RETURN NULL;
  END $$;
  CREATE TRIGGER rollouts_keys_update AFTER UPDATE OF state, stage ON rollouts FOR EACH ROW
    WHEN (NEW.state IS DISTINCT FROM OLD.state OR NEW.stage IS DISTINCT FROM OLD.stage)
    EXECUTE FUNCTION firmware_keys_bump();
  CREATE TRIGGER rollouts_keys_delete AFTER DELETE ON rollouts FOR EACH ROW EXECUTE FUNCTION firmware_keys_bump();
  CREATE TRIGGER device_types_keys AFTER INSERT OR DELETE OR UPDATE OF default_firmware, name ON device_types
    FOR EACH ROW EXECUTE FUNCTION firmware_keys_bump();
  CREATE TRIGGER firmwares_keys_delete AFTER DELETE ON firmwares FOR EACH ROW EXECUTE FUNCTION firmware_keys_bump();
  CREATE TRIGGER product_types_keys_delete AFTER DELETE ON product_types FOR EACH ROW
    EXECUTE FUNCTION firmware_keys_bump();
  DROP INDEX devices_firmware_seen;
  DROP INDEX devices_firmware_updated;
  DROP INDEX devices_firmware_created;
  DROP INDEX devices_firmware_app;
  -- firmware_id rides along: the default filter (firmware_key IS NULL AND firmware_id IS NULL) stays an index-only
  -- walk, which the planner then prefers to sorting every match for a deep page
  CREATE INDEX devices_firmware_key ON devices(firmware_key, device_id) INCLUDE (firmware_id);
  CREATE INDEX devices_firmware_key_seen ON devices(firmware_key, last_logged_in NULLS FIRST, device_id)
    INCLUDE (firmware_id);
  CREATE INDEX devices_firmware_key_updated ON devices(firmware_key, updated_at, device_id, last_logged_in)
    INCLUDE (firmware_id);
  CREATE INDEX devices_firmware_key_created ON devices(firmware_key, created_at, device_id, last_logged_in)
    INCLUDE (firmware_id);
  CREATE INDEX devices_firmware_key_app ON devices(firmware_key, app NULLS FIRST, device_id, last_logged_in)
    INCLUDE (firmware_id);
  INSERT INTO device_group_counts (dim, key, n)
    SELECT 'effective', COALESCE('v:' || firmware_key, 'none'), count(*) FROM devices GROUP BY 2;
  ${GROUP_COUNT_FUNCTIONS}
  `.replaceAll(
    "GROUPS",
    GROUPS_10.replace(
      ") AS g(dim, key)",
      `,
        ('effective', COALESCE('v:' || r.firmware_key, 'none'))) AS g(dim, key)`,
    ),
  ),
  // 13: release integrity (SQLite's migration 19; docs/DECISIONS.md, "Release integrity")
  `
  CREATE TABLE release_keys (
    id TEXT COLLATE "C" PRIMARY KEY,
    name TEXT NOT NULL,
    name_key TEXT COLLATE "C" NOT NULL UNIQUE,
    algorithm TEXT COLLATE "C" NOT NULL CHECK (algorithm IN ('ed25519', 'ecdsa-p256')),
    public_key TEXT NOT NULL,
    fingerprint TEXT COLLATE "C" NOT NULL UNIQUE,
    created_at TEXT COLLATE "C" NOT NULL,
    created_by TEXT NOT NULL,
    revoked_at TEXT COLLATE "C",
    revoked_by TEXT
  );
  ALTER TABLE firmwares ADD COLUMN signature_key_id TEXT COLLATE "C" REFERENCES release_keys(id) ON DELETE RESTRICT;
  ALTER TABLE firmwares ADD COLUMN signature TEXT;
  ALTER TABLE firmwares ADD COLUMN uploaded_by_id TEXT COLLATE "C";
  ALTER TABLE firmwares ADD COLUMN uploaded_by TEXT;
  ALTER TABLE firmwares ADD COLUMN approval TEXT COLLATE "C" NOT NULL DEFAULT 'not_required'
    CHECK (approval IN ('pending', 'approved', 'not_required'));
  ALTER TABLE firmwares ADD COLUMN approved_by TEXT;
  ALTER TABLE firmwares ADD COLUMN approved_at TEXT COLLATE "C";
  ALTER TABLE firmwares ADD COLUMN approval_meaning TEXT;
  `,
  // 14: hawkBit DDI (SQLite's migration 20): actions with int32 ids devices see, at most one current per device; the
  // sha1 and md5 DDI lists; the attributes of configData.
  `
  CREATE TABLE ddi_actions (
    id INTEGER GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    device_id TEXT COLLATE "C" NOT NULL REFERENCES devices(device_id) ON DELETE CASCADE,
    firmware_id TEXT COLLATE "C" NOT NULL REFERENCES firmwares(id) ON DELETE CASCADE,
    state TEXT NOT NULL,
    result TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );
  CREATE UNIQUE INDEX ddi_actions_current ON ddi_actions(device_id) WHERE state IN ('open', 'canceling');
  CREATE INDEX ddi_actions_device ON ddi_actions(device_id, id);
  CREATE INDEX ddi_actions_firmware ON ddi_actions(firmware_id);
  ALTER TABLE firmwares ADD COLUMN sha1 TEXT COLLATE "C";
  ALTER TABLE firmwares ADD COLUMN md5 TEXT COLLATE "C";
  ALTER TABLE devices ADD COLUMN attributes TEXT;
  `,
  // 15: one lock order for every device write (docs/DECISIONS.md, "Polls that change nothing cost no write"): the
  // devices change counter's row is taken before the fleet counts' rows (statement triggers fire in name order). Each
  // device write then waits for the counter before it takes any counts row, so two of them can no longer hold a
  // counts row each and wait for the other's (a pin beside a new device's check-in did: each deadlock cost
  // deadlock_timeout, 1 s, with the pin holding the write lock every operator write queues on).
  `
  ALTER TRIGGER devices_insert_counted ON devices RENAME TO devices_counted_insert;
  ALTER TRIGGER devices_update_counted ON devices RENAME TO devices_counted_update;
  ALTER TRIGGER devices_delete_counted ON devices RENAME TO devices_counted_delete;
  `,
  // 16: the configuration generation (docs/DECISIONS.md, "Device writes beside operator writes ...; the credential
  // and configuration from memory"): moved once by every transaction that changes a table a device's configuration or
  // DDI answer reads beyond its own row (a device's own row is compared by the quiet poll itself), so a replica answers
  // a quiet poll from memory while the generation its one statement reads is the one its answer was read at. The move
  // is made at the commit (a deferred constraint trigger, once per transaction): the generation's row is the last lock
  // a transaction takes, so it can be in no lock cycle, and it is held for the commit only.
  `
  CREATE TABLE config_generation (
    one BOOLEAN PRIMARY KEY DEFAULT true CHECK (one),
    value BIGINT NOT NULL
  );
  INSERT INTO config_generation (one, value) VALUES (true, 0);
  CREATE TABLE config_changes (tx BIGINT NOT NULL);
  CREATE FUNCTION config_changed() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF current_setting('console.config_changed', true) IS DISTINCT FROM '1' THEN
      PERFORM set_config('console.config_changed', '1', true);
      INSERT INTO config_changes (tx) VALUES (txid_current());
    END IF;
    RETURN NULL;
  END $$;
  CREATE FUNCTION config_commit() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    UPDATE config_generation SET value = value + 1;
    DELETE FROM config_changes WHERE tx = NEW.tx;
    RETURN NULL;
  END $$;
  CREATE CONSTRAINT TRIGGER config_changes_commit AFTER INSERT ON config_changes DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION config_commit();
  CREATE TRIGGER config_device_modules AFTER INSERT OR UPDATE OR DELETE ON device_modules FOR EACH STATEMENT
    EXECUTE FUNCTION config_changed();
  CREATE TRIGGER config_device_treatments AFTER INSERT OR UPDATE OR DELETE ON device_treatments FOR EACH STATEMENT
    EXECUTE FUNCTION config_changed();
  CREATE TRIGGER config_product_types AFTER INSERT OR UPDATE OR DELETE ON product_types FOR EACH STATEMENT
    EXECUTE FUNCTION config_changed();
  CREATE TRIGGER config_modules AFTER INSERT OR UPDATE OR DELETE ON modules FOR EACH STATEMENT
    EXECUTE FUNCTION config_changed();
  CREATE TRIGGER config_module_treatments AFTER INSERT OR UPDATE OR DELETE ON module_treatments FOR EACH STATEMENT
    EXECUTE FUNCTION config_changed();
  CREATE TRIGGER config_treatments AFTER INSERT OR UPDATE OR DELETE ON treatments FOR EACH STATEMENT
    EXECUTE FUNCTION config_changed();
  CREATE TRIGGER config_treatment_phases AFTER INSERT OR UPDATE OR DELETE ON treatment_phases FOR EACH STATEMENT
    EXECUTE FUNCTION config_changed();
  CREATE TRIGGER config_firmwares AFTER INSERT OR UPDATE OR DELETE ON firmwares FOR EACH STATEMENT
    EXECUTE FUNCTION config_changed();
  CREATE TRIGGER config_release_keys AFTER INSERT OR UPDATE OR DELETE ON release_keys FOR EACH STATEMENT
    EXECUTE FUNCTION config_changed();
  CREATE TRIGGER config_device_types AFTER INSERT OR UPDATE OR DELETE ON device_types FOR EACH STATEMENT
    EXECUTE FUNCTION config_changed();
  CREATE TRIGGER config_rollout_devices AFTER INSERT OR UPDATE OR DELETE ON rollout_devices FOR EACH STATEMENT
    EXECUTE FUNCTION config_changed();
  CREATE TRIGGER config_ddi_actions AFTER INSERT OR UPDATE OR DELETE ON ddi_actions FOR EACH STATEMENT
    EXECUTE FUNCTION config_changed();
  CREATE TRIGGER config_rollouts AFTER INSERT OR DELETE OR UPDATE OF firmware_id, product_type_id, stages, state, stage, stage_percent, created_at ON rollouts
    FOR EACH STATEMENT EXECUTE FUNCTION config_changed();
  `,
  // 17: rollouts newest first by creation order, not by the clock (docs/DECISIONS.md, "Rollouts newest first by
  // creation order"; SQLite's migration 22 ranks them by rowid): seq is taken at the insert under the write lock, so it
  // follows the creation order whatever the replicas' clocks say. The rollouts there are numbered in the order they
  // were ranked in (created_at, id), so no device's firmware moves.
  `
  ALTER TABLE rollouts ADD COLUMN seq BIGINT;
  UPDATE rollouts r SET seq = o.n
    FROM (SELECT id, row_number() OVER (ORDER BY created_at, id) AS n FROM rollouts) o WHERE o.id = r.id;
  ALTER TABLE rollouts ALTER COLUMN seq SET NOT NULL;
  ALTER TABLE rollouts ALTER COLUMN seq ADD GENERATED ALWAYS AS IDENTITY;
  SELECT setval(pg_get_serial_sequence('rollouts', 'seq'), (SELECT count(*) FROM rollouts) + 1, false);
  DROP INDEX rollouts_newest;
  CREATE UNIQUE INDEX rollouts_newest ON rollouts(seq DESC);
  `,
  // 18: the exact last check-in in a narrow table of its own (docs/DECISIONS.md, "Last-seen writes of a million-device
  // fleet: the exact time beside the row"; SQLite's migration 23): device_seen holds it with copies of the columns the
  // sort by last seen filters by (kept by statement triggers on devices: they change only on loud writes) and the
  // indexes that sort needs; devices keeps only the hour of it (seen_hour), in the indexes where last_logged_in
  // trailed, so a device polling every few minutes moves its devices row (non-HOT: 23 indexes) once an hour and its
  // narrow row at each batch. The hourly seen counts key by seen_hour. Triggers are off while the hours are set: the
  // counts do not change (the same hours), the change counter is moved once.
  `
  CREATE TABLE device_seen (
    device_id TEXT COLLATE "C" PRIMARY KEY,
    last_logged_in TEXT,
    product_type_id TEXT COLLATE "C",
    firmware_key TEXT COLLATE "C",
    firmware_id TEXT COLLATE "C",
    app TEXT COLLATE "C",
    os TEXT COLLATE "C"
  );
  INSERT INTO device_seen (device_id, last_logged_in, product_type_id, firmware_key, firmware_id, app, os)
    SELECT device_id, last_logged_in, product_type_id, firmware_key, firmware_id, app, os FROM devices;
  -- The foreign key after the rows: checked by one join, not by a locking probe of devices per row.
  ALTER TABLE device_seen ADD CONSTRAINT device_seen_device_id_fkey FOREIGN KEY (device_id)
    REFERENCES devices(device_id) ON DELETE CASCADE;
  CREATE INDEX device_seen_last_logged_in ON device_seen(last_logged_in NULLS FIRST, device_id) INCLUDE (app, os);
  CREATE INDEX device_seen_product_type ON device_seen(product_type_id, last_logged_in NULLS FIRST, device_id);
  CREATE INDEX device_seen_firmware_key ON device_seen(firmware_key, last_logged_in NULLS FIRST, device_id)
    INCLUDE (firmware_id);
  CREATE INDEX device_seen_custom ON device_seen(last_logged_in NULLS FIRST, device_id) WHERE firmware_id IS NOT NULL;
  ANALYZE device_seen;

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
  ALTER TABLE devices DISABLE TRIGGER USER;
  UPDATE devices SET seen_hour = substr(last_logged_in, 1, 13) WHERE last_logged_in IS NOT NULL;
  ALTER TABLE devices ENABLE TRIGGER USER;
  UPDATE change_counters SET value = value + 1 WHERE name = 'devices';
  ${GROUP_COUNT_FUNCTIONS}
  ALTER TABLE devices DROP COLUMN last_logged_in;
  CREATE INDEX devices_product_type_seen ON devices(product_type_id, seen_hour NULLS FIRST, device_id);
  CREATE INDEX devices_product_type_updated ON devices(product_type_id, updated_at, device_id, seen_hour);
  CREATE INDEX devices_product_type_created ON devices(product_type_id, created_at, device_id, seen_hour);
  CREATE INDEX devices_product_type_app ON devices(product_type_id, app NULLS FIRST, device_id, seen_hour);
  CREATE INDEX devices_seen_hour ON devices(seen_hour NULLS FIRST, device_id, app, os);
  CREATE INDEX devices_custom_seen ON devices(seen_hour NULLS FIRST, device_id) WHERE firmware_id IS NOT NULL;
  CREATE INDEX devices_firmware_key_seen ON devices(firmware_key, seen_hour NULLS FIRST, device_id)
    INCLUDE (firmware_id);
  CREATE INDEX devices_firmware_key_updated ON devices(firmware_key, updated_at, device_id, seen_hour)
    INCLUDE (firmware_id);
  CREATE INDEX devices_firmware_key_created ON devices(firmware_key, created_at, device_id, seen_hour)
    INCLUDE (firmware_id);
  CREATE INDEX devices_firmware_key_app ON devices(firmware_key, app NULLS FIRST, device_id, seen_hour)
    INCLUDE (firmware_id);

  -- Named to fire after devices_counted_* and devices_groups_* (statement triggers fire in name order): the change
  -- counter is still the first lock a device write takes after its rows.
  CREATE FUNCTION device_seen_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    INSERT INTO device_seen (device_id, product_type_id, firmware_key, firmware_id, app, os)
      SELECT device_id, product_type_id, firmware_key, firmware_id, app, os FROM new_rows;
    RETURN NULL;
  END $$;
  CREATE FUNCTION device_seen_copied() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    UPDATE device_seen s SET product_type_id = n.product_type_id, firmware_key = n.firmware_key,
        firmware_id = n.firmware_id, app = n.app, os = n.os
      FROM new_rows n JOIN old_rows o ON o.device_id = n.device_id
      WHERE s.device_id = n.device_id
        AND (n.product_type_id, n.firmware_key, n.firmware_id, n.app, n.os)
          IS DISTINCT FROM (o.product_type_id, o.firmware_key, o.firmware_id, o.app, o.os);
    RETURN NULL;
  END $$;
  CREATE TRIGGER devices_seen_inserted AFTER INSERT ON devices REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION device_seen_inserted();
  CREATE TRIGGER devices_seen_copied AFTER UPDATE ON devices REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION device_seen_copied();
  `.replaceAll(
    "GROUPS",
    GROUPS_10.replace("substr(r.last_logged_in, 1, 13)", "r.seen_hour").replace(
      ") AS g(dim, key)",
      `,
        ('effective', COALESCE('v:' || r.firmware_key, 'none'))) AS g(dim, key)`,
    ),
  ),
  // 19: the OS version trails (product_type_id, app, …) (docs/DECISIONS.md, "Fleet views at 100,000 devices: p99 ≤ 10
  // ms on both engines"; SQLite's migration 24): an app + OS filter sorted by product type tests the OS in the index
  // (an index condition) and visits only the matching devices rows, not every app match's. The same number of indexes.
  `
  DROP INDEX devices_product_type_app;
  CREATE INDEX devices_product_type_app ON devices(product_type_id, app NULLS FIRST, device_id, seen_hour, os);
  `,
  // 20: the check-in hour trails (product_type_id, device_id) (docs/DECISIONS.md, "Fleet views: the tail on
  // PostgreSQL, statistics on SQLite"): a check-in filter sorted by product type reads a group's page in order and
  // tests the hour in the index (an index condition), visiting only the matching devices rows, where it read and
  // sorted every match of the group. seen_hour changes are non-HOT already; the same number of indexes.
  `
  DROP INDEX devices_product_type;
  CREATE INDEX devices_product_type ON devices(product_type_id, device_id, seen_hour NULLS FIRST);
  `,
];
