import { Module } from '@nestjs/common';
import { AssistantsModule } from '../assistants/assistants.module.js';
import { SourceReloader } from './source-reloader.js';

/** `berth dev`: the application served anew when its files change. */
@Module({ imports: [AssistantsModule], providers: [SourceReloader] })
export class ReloadModule {}
