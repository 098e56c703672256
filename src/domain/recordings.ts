// What calls and meetings keep from their providers alike: recordings and transcript cues.

/** A recording the provider holds; only its address and type are kept. */
export interface Recording<ContentType extends string = string> {
  contentType: ContentType;
  providerId: string;
  url: string;
}

/** A transcript cue: seconds from the start, the text, and who spoke (each resource says how). */
export interface Cue<Speaker> {
  from: number;
  to: number;
  text: string;
  speaker: Speaker;
}
