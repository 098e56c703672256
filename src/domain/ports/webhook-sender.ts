// The port through which webhook deliveries leave the process: one signed POST per call. The implementation
// (src/webhook-sender.ts) stamps and signs each attempt per Standard Webhooks and refuses addresses the URL
// rules forbid; tests may substitute their own.

export interface WebhookRequest {
  url: string;
  /** `whsec_…` */
  secret: string;
  /** `webhook-id`: the same on every attempt. */
  messageId: string;
  /** The JSON body, exactly as signed and sent. */
  body: string;
}

export interface WebhookResult {
  /** The receiver's status code; null when no answer came. */
  statusCode: number | null;
  latencyMs: number;
  /** Why the attempt failed without (or despite) an answer; null on a 2xx. */
  error: string | null;
  /** The start of the receiver's answer. */
  responseExcerpt: string | null;
}

export interface WebhookSender {
  send(request: WebhookRequest): Promise<WebhookResult>;
}
