/**
 * Notifications to an operator's chat (NOTIFY_WEBHOOK_URL).
 *
 * @module
 */
export * from "./webhook.ts";
