// The SMTP side of the mail port, with nodemailer: one transport to the server SMTP_URL names. Its time
// limits keep one message well under a minute, so a sender's batch ends inside its lease (program-messages.ts).
import nodemailer from 'nodemailer';
import type { Mailer } from './domain/ports/mailer.ts';

export function smtpMailer(url: string): Mailer {
  const transport = nodemailer.createTransport({ url, connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000 });
  return {
    async send(mail) {
      await transport.sendMail({ from: mail.from, to: mail.to, subject: mail.subject, text: mail.text, messageId: mail.messageId });
    },
    close: () => transport.close(),
  };
}
