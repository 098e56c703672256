// The SMTP side of the mail port, with nodemailer: one pooled transport to the server SMTP_URL names.
import nodemailer from 'nodemailer';
import type { Mailer } from './domain/ports/mailer.ts';

export function smtpMailer(url: string): Mailer {
  const transport = nodemailer.createTransport(url);
  return {
    async send(mail) {
      await transport.sendMail({ from: mail.from, to: mail.to, subject: mail.subject, text: mail.text, messageId: mail.messageId });
    },
    close: () => transport.close(),
  };
}
