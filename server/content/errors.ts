/**
 * The errors of content reads and uploads (content.md), as AppErrors the central handler
 * answers. An upload conflict carries the bytes received so far, which the answer's body
 * gives as `offset` so a client can resume.
 */
import { AppError } from '../../app/errors.js';

export class UploadConflict extends AppError {
  constructor(
    detail: string,
    readonly offset: number | undefined,
  ) {
    super('Conflict', 'Conflict', { status: 409, detail });
  }
}

/** 409: `offset` is not the number of bytes received so far. */
export const wrongOffset = (sent: number, received: number): UploadConflict =>
  new UploadConflict(`offset ${sent} is not the ${received} bytes received so far: resume at offset ${received}`, received);

/** 409: another request of this upload is still running. */
export const uploadBusy = (received: number): UploadConflict =>
  new UploadConflict('another request of this upload is in progress', received);

/** 409: the file has no unfinished upload. */
export const noUpload = (): UploadConflict =>
  new UploadConflict('this file has no upload in progress: start one with POST .../resumable?truncate=true', undefined);

/** 409: the content of a file whose upload is not finished. */
export const unfinished = (): AppError =>
  new AppError('Conflict', 'Conflict', { status: 409, detail: 'the upload of this file is not finished' });

/** 507: the disk has no room; nothing of the failed part was kept. */
export const insufficientStorage = (cause?: unknown): AppError =>
  new AppError('DiskError', 'Insufficient Storage', { status: 507, detail: 'the disk is full: nothing of this part was kept', cause });
