// The UI's only door to the backend: the generated bindings, with every failure turned into
// an ApiError `{ code, message }`. Framework-level Tauri failures (unknown command, ACL denial)
// arrive as plain strings; they become code "internal" so callers branch on `code` alone.
import { commands, type ApiError, type ErrorCode } from "../bindings";

export type Outcome<T> = { ok: true; value: T } | { ok: false; error: ApiError };

const internal: ErrorCode = "internal";

export function toApiError(raw: unknown): ApiError {
  if (
    typeof raw === "object" &&
    raw !== null &&
    "code" in raw &&
    "message" in raw &&
    typeof raw.code === "string" &&
    typeof raw.message === "string"
  ) {
    return { code: raw.code as ErrorCode, message: raw.message };
  }
  const message = raw instanceof Error ? raw.message : String(raw);
  return { code: internal, message };
}

type Typed<T> = { status: "ok"; data: T } | { status: "error"; error: ApiError };

/** Runs one generated command and folds every way it can fail into an Outcome. */
export async function call<T>(command: () => Promise<Typed<T>>): Promise<Outcome<T>> {
  try {
    const result = await command();
    return result.status === "ok"
      ? { ok: true, value: result.data }
      : { ok: false, error: toApiError(result.error) };
  } catch (raw) {
    return { ok: false, error: toApiError(raw) };
  }
}

export const loadServerList = () => call(commands.listServers);
export const loadStatuses = () => call(commands.serverStatuses);
