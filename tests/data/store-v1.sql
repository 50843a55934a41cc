-- A task store as release 1 (schema version 1) left it: the v1 statements of core/store/Migrations.cpp verbatim,
-- PRAGMA user_version=1 and the rows v1 code wrote for three tasks, two reviews and five audit entries.
-- test_store builds a file from it and opens it with the current TaskStore to check the upgrade.
--
-- Format: statements are separated by a line holding exactly "-- ;;" (the triggers contain semicolons, so a split
-- on ';' would cut them). Lines starting with "--" outside a string are comments. content_hash holds
-- Task::contentHash() of each task as v1 computed it.
PRAGMA journal_mode=WAL
-- ;;
CREATE TABLE tasks (
            task_pk       INTEGER PRIMARY KEY,
            id            TEXT NOT NULL UNIQUE,
            title         TEXT NOT NULL,
            level         INTEGER NOT NULL CHECK (level BETWEEN 1 AND 4),
            source        TEXT NOT NULL,                      -- JSON object
            dtype         TEXT NOT NULL,
            shown         INTEGER NOT NULL CHECK (shown BETWEEN 1 AND 7),
            status        TEXT NOT NULL CHECK (status IN ('draft','in_review','accepted','rejected','needs_changes')),
            forbidden_ops TEXT NOT NULL DEFAULT '[]',         -- JSON array
            atol          REAL,
            rtol          REAL,
            flops_formula TEXT NOT NULL DEFAULT '',
            bytes_formula TEXT NOT NULL DEFAULT '',
            configs       TEXT NOT NULL DEFAULT '[]',         -- JSON array of objects
            description   TEXT NOT NULL DEFAULT '',
            reference     TEXT NOT NULL DEFAULT '',
            spec          TEXT NOT NULL DEFAULT '',
            content_hash  TEXT NOT NULL,
            created_at    TEXT NOT NULL,
            updated_at    TEXT NOT NULL)
-- ;;
CREATE TABLE task_categories (
            task_id  TEXT NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
            position INTEGER NOT NULL,
            category TEXT NOT NULL,
            PRIMARY KEY (task_id, category))
-- ;;
CREATE INDEX task_categories_by_category ON task_categories(category)
-- ;;
CREATE TABLE task_tags (
            task_id  TEXT NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
            position INTEGER NOT NULL,
            tag      TEXT NOT NULL,
            PRIMARY KEY (task_id, tag))
-- ;;
CREATE TABLE reviews (
            id          INTEGER PRIMARY KEY,
            task_id     TEXT NOT NULL REFERENCES tasks(id),
            reviewer    TEXT NOT NULL,
            at          TEXT NOT NULL,
            from_status TEXT NOT NULL,
            to_status   TEXT NOT NULL,
            reason      TEXT NOT NULL DEFAULT '',
            comment     TEXT NOT NULL DEFAULT '')
-- ;;
CREATE INDEX reviews_by_task ON reviews(task_id, at)
-- ;;
CREATE TABLE audit_log (
            id        INTEGER PRIMARY KEY AUTOINCREMENT,
            at        TEXT NOT NULL,
            actor     TEXT NOT NULL,
            entity    TEXT NOT NULL,                         -- task, solution, run, store
            entity_id TEXT NOT NULL,
            action    TEXT NOT NULL,
            reason    TEXT NOT NULL DEFAULT '',
            detail    TEXT NOT NULL DEFAULT '{}')
-- ;;
CREATE INDEX audit_by_entity ON audit_log(entity, entity_id, id)
-- ;;
CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log
           BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END
-- ;;
CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log
           BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END
-- ;;
PRAGMA user_version=1
-- ;;
-- old-relu: every optional field set; accepted by a review.
INSERT INTO tasks(id, title, level, source, dtype, shown, status, forbidden_ops, atol, rtol, flops_formula,
                  bytes_formula, configs, description, reference, spec, content_hash, created_at, updated_at)
VALUES ('old-relu', 'Legacy ReLU activation', 1, '{"kind":"bundled"}', 'float32', 3, 'accepted',
        '["torch.relu","torch.clamp"]', 0.0001, 0.0002, 'N', '8*N',
        '[{"N":1048576,"name":"large"},{"N":1024,"alpha":0.5,"name":"small"}]',
        'Apply the rectified linear unit to every element of a vector.',
        'import torch

class Model(torch.nn.Module):
    def forward(self, x):
        return torch.relu(x)
',
        '', '65ce2216e2d9be85b17a65eb59f7c33f8f05e8c5772ef801c1239e4e225b229e', '2024-05-02T10:00:00.000Z', '2024-05-03T09:30:00.000Z')
-- ;;
INSERT INTO task_categories(task_id, position, category) VALUES ('old-relu', 0, 'activation')
-- ;;
INSERT INTO task_categories(task_id, position, category) VALUES ('old-relu', 1, 'elementwise')
-- ;;
INSERT INTO task_tags(task_id, position, tag) VALUES ('old-relu', 0, 'legacy')
-- ;;
INSERT INTO task_tags(task_id, position, tag) VALUES ('old-relu', 1, 'v1')
-- ;;
-- old-softmax: a KernelBench task, sent back by a review.
INSERT INTO tasks(id, title, level, source, dtype, shown, status, forbidden_ops, atol, rtol, flops_formula,
                  bytes_formula, configs, description, reference, spec, content_hash, created_at, updated_at)
VALUES ('old-softmax', 'Legacy row softmax', 2, '{"kind":"kernelbench","level":1,"name":"23_Softmax","problem":23}',
        'float16', 1, 'needs_changes', '[]', NULL, NULL, '', '', '[]',
        'Numerically stable softmax over the rows of a matrix.',
        'import torch

def forward(x):
    return torch.softmax(x, dim=1)
',
        '$$y_i = e^{x_i} / \sum_j e^{x_j}$$', '31c3cbd532e799c76a03066618316bd42f64aa1498b7143e7510c62ea0053f5b', '2024-05-02T10:00:01.000Z',
        '2024-05-04T14:00:00.000Z')
-- ;;
INSERT INTO task_categories(task_id, position, category) VALUES ('old-softmax', 0, 'softmax')
-- ;;
-- old-layernorm: imported from a JSONL file, never reviewed.
INSERT INTO tasks(id, title, level, source, dtype, shown, status, forbidden_ops, atol, rtol, flops_formula,
                  bytes_formula, configs, description, reference, spec, content_hash, created_at, updated_at)
VALUES ('old-layernorm', 'Legacy layer normalization', 1, '{"kind":"file","line":3,"path":"/data/legacy.jsonl"}',
        'float32', 4, 'draft', '[]', NULL, NULL, '', '', '[{"D":768,"affine":true,"eps":1e-05,"name":"base"}]',
        '', 'import torch.nn.functional as F

def forward(x):
    return F.layer_norm(x, (768,))
',
        'Normalize each row to zero mean and unit variance.', '118a09b103ac72a4f353540b1569c2e16e1ea537a677d87f44305f5adf1ddabc', '2024-05-02T10:00:02.000Z',
        '2024-05-02T10:00:02.000Z')
-- ;;
INSERT INTO task_categories(task_id, position, category) VALUES ('old-layernorm', 0, 'normalization')
-- ;;
INSERT INTO task_tags(task_id, position, tag) VALUES ('old-layernorm', 0, 'imported')
-- ;;
INSERT INTO reviews(task_id, reviewer, at, from_status, to_status, reason, comment)
VALUES ('old-relu', 'carol', '2024-05-03T09:30:00.000Z', 'draft', 'accepted', 'checked on A100', 'clean')
-- ;;
INSERT INTO reviews(task_id, reviewer, at, from_status, to_status, reason, comment)
VALUES ('old-softmax', 'dave', '2024-05-04T14:00:00.000Z', 'draft', 'needs_changes', 'unstable',
        'subtract the row maximum first')
-- ;;
INSERT INTO audit_log(at, actor, entity, entity_id, action, reason, detail)
VALUES ('2024-05-02T10:00:00.000Z', 'importer', 'task', 'old-relu', 'created', 'import', '{"status":"draft"}')
-- ;;
INSERT INTO audit_log(at, actor, entity, entity_id, action, reason, detail)
VALUES ('2024-05-02T10:00:01.000Z', 'importer', 'task', 'old-softmax', 'created', 'import', '{"status":"draft"}')
-- ;;
INSERT INTO audit_log(at, actor, entity, entity_id, action, reason, detail)
VALUES ('2024-05-02T10:00:02.000Z', 'importer', 'task', 'old-layernorm', 'created', 'import', '{"status":"draft"}')
-- ;;
INSERT INTO audit_log(at, actor, entity, entity_id, action, reason, detail)
VALUES ('2024-05-03T09:30:00.000Z', 'carol', 'task', 'old-relu', 'status', 'checked on A100',
        '{"comment":"clean","from":"draft","review_id":1,"to":"accepted"}')
-- ;;
INSERT INTO audit_log(at, actor, entity, entity_id, action, reason, detail)
VALUES ('2024-05-04T14:00:00.000Z', 'dave', 'task', 'old-softmax', 'status', 'unstable',
        '{"comment":"subtract the row maximum first","from":"draft","review_id":2,"to":"needs_changes"}')
