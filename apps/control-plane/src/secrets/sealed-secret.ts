/** A secret as it is stored: its name, and its value sealed with the platform's key. */
export type SealedSecret = {
  name: string;
  sealed: string;
};
