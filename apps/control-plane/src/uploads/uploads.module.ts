import { Module } from '@nestjs/common';
import { UploadsController } from './uploads.controller.js';

/** The signed upload URLs' target: a deployment's source tarball, PUT once. */
@Module({ controllers: [UploadsController] })
export class UploadsModule {}
