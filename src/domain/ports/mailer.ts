// The mail port: how the program message sender hands a rendered message to a mail server (SMTP, in
// src/mail.ts). Without one, messages go to Tycho's local outbox.
export interface OutgoingMail {
  from: string;
  to: string;
  subject: string;
  text: string;
  /** The Message-ID header, `<…>`. */
  messageId: string;
}

export interface Mailer {
  /** Resolves when the server accepted the message; rejects with the server's reason otherwise. */
  send(mail: OutgoingMail): Promise<void>;
  close(): void;
}
