-- What partners see carries the brand (issue 44, item 1): per program, the brand's name, a short
-- pitch, the reward summary (null: written from the commission terms), the accent colour (null:
-- the service's), and its logo. The logo's bytes live in their own table (read only by the logo's
-- address, by program id); the program keeps the logo's hash so pages link to it without reading it.
ALTER TABLE programs
  ADD COLUMN IF NOT EXISTS brand_name text CHECK (brand_name IS NULL OR char_length(brand_name) BETWEEN 1 AND 80),
  ADD COLUMN IF NOT EXISTS brand_pitch text NOT NULL DEFAULT '' CHECK (char_length(brand_pitch) <= 280),
  ADD COLUMN IF NOT EXISTS reward_summary text CHECK (reward_summary IS NULL OR char_length(reward_summary) BETWEEN 1 AND 160),
  ADD COLUMN IF NOT EXISTS accent_color text CHECK (accent_color IS NULL OR accent_color ~ '^#[0-9a-f]{6}$'),
  ADD COLUMN IF NOT EXISTS logo_sha256 text CHECK (logo_sha256 IS NULL OR logo_sha256 ~ '^[0-9a-f]{64}$');

CREATE TABLE IF NOT EXISTS program_logos (
  program_id bigint PRIMARY KEY REFERENCES programs (id) ON DELETE CASCADE,
  content_type text NOT NULL CHECK (content_type IN ('image/png', 'image/jpeg', 'image/webp')),
  bytes bytea NOT NULL CHECK (octet_length(bytes) BETWEEN 1 AND 204800),
  sha256 text NOT NULL CHECK (sha256 ~ '^[0-9a-f]{64}$'),
  updated_at timestamptz NOT NULL DEFAULT now()
);
